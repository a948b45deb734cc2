# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }
  set output 'accuracy.'.fmt
  set xlabel 'round'
  set ylabel 'test accuracy of the global model'
  set key outside right
  set grid
  plot 'run00_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#d62728' title 'flce', \
       'run01_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#1f77b4' title 'fedavg', \
       'run02_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#ff7f0e' title 'fedprox', \
       'run03_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#2ca02c' title 'ditto', \
       'run04_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#9467bd' title 'moon', \
       'run05_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#8c564b' title 'fedfv', \
       'run06_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#e377c2' title 'cgsv', \
       'run07_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#7f7f7f' title 'qfedavg', \
       'run08_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#bcbd22' title 'fedfa', \
       'run09_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#17becf' title 'fedsv', \
       'run10_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#393b79' title 'gtg', \
       'run11_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#d62728' title 'flce (fmnist-noniid-s1/flce)', \
       'run12_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#1f77b4' title 'fedavg (fmnist-noniid-s1/fedavg)', \
       'run13_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#ff7f0e' title 'fedprox (fmnist-noniid-s1/fedprox)', \
       'run14_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#2ca02c' title 'ditto (fmnist-noniid-s1/ditto)', \
       'run15_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#9467bd' title 'moon (fmnist-noniid-s1/moon)', \
       'run16_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#8c564b' title 'fedfv (fmnist-noniid-s1/fedfv)', \
       'run17_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#e377c2' title 'cgsv (fmnist-noniid-s1/cgsv)', \
       'run18_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#7f7f7f' title 'qfedavg (fmnist-noniid-s1/qfedavg)', \
       'run19_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#bcbd22' title 'fedfa (fmnist-noniid-s1/fedfa)', \
       'run20_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#17becf' title 'fedsv (fmnist-noniid-s1/fedsv)', \
       'run21_metrics.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#393b79' title 'gtg (fmnist-noniid-s1/gtg)'
}
