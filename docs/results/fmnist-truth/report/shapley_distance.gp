# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }
  set output 'shapley_distance.'.fmt
  set xlabel 'round'
  set ylabel 'Euclidean distance to exact Shapley'
  set key outside right
  set grid
  plot 'shapley_distance.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#d62728' title 'flce (fmnist-truth-dup-k-runs-s403/flce)', \
       'shapley_distance.csv' skip 1 using 1:3 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#1f77b4' title 'fedavg (fmnist-truth-dup-k-runs-s403/fedavg)', \
       'shapley_distance.csv' skip 1 using 1:4 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#ff7f0e' title 'fedprox (fmnist-truth-dup-k-runs-s403/fedprox)', \
       'shapley_distance.csv' skip 1 using 1:5 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#2ca02c' title 'ditto (fmnist-truth-dup-k-runs-s403/ditto)', \
       'shapley_distance.csv' skip 1 using 1:6 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#9467bd' title 'moon (fmnist-truth-dup-k-runs-s403/moon)', \
       'shapley_distance.csv' skip 1 using 1:7 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#8c564b' title 'fedfv (fmnist-truth-dup-k-runs-s403/fedfv)', \
       'shapley_distance.csv' skip 1 using 1:8 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#e377c2' title 'cgsv (fmnist-truth-dup-k-runs-s403/cgsv)', \
       'shapley_distance.csv' skip 1 using 1:9 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#7f7f7f' title 'qfedavg (fmnist-truth-dup-k-runs-s403/qfedavg)', \
       'shapley_distance.csv' skip 1 using 1:10 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#bcbd22' title 'fedfa (fmnist-truth-dup-k-runs-s403/fedfa)', \
       'shapley_distance.csv' skip 1 using 1:11 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#17becf' title 'fedsv (fmnist-truth-dup-k-runs-s403/fedsv)', \
       'shapley_distance.csv' skip 1 using 1:12 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#393b79' title 'gtg (fmnist-truth-dup-k-runs-s403/gtg)', \
       'shapley_distance.csv' skip 1 using 1:13 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#d62728' title 'flce (fmnist-truth-dup-full-runs-s403/flce)', \
       'shapley_distance.csv' skip 1 using 1:14 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#1f77b4' title 'fedavg (fmnist-truth-dup-full-runs-s403/fedavg)', \
       'shapley_distance.csv' skip 1 using 1:15 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#ff7f0e' title 'fedprox (fmnist-truth-dup-full-runs-s403/fedprox)', \
       'shapley_distance.csv' skip 1 using 1:16 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#2ca02c' title 'ditto (fmnist-truth-dup-full-runs-s403/ditto)', \
       'shapley_distance.csv' skip 1 using 1:17 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#9467bd' title 'moon (fmnist-truth-dup-full-runs-s403/moon)', \
       'shapley_distance.csv' skip 1 using 1:18 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#8c564b' title 'fedfv (fmnist-truth-dup-full-runs-s403/fedfv)', \
       'shapley_distance.csv' skip 1 using 1:19 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#e377c2' title 'cgsv (fmnist-truth-dup-full-runs-s403/cgsv)', \
       'shapley_distance.csv' skip 1 using 1:20 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#7f7f7f' title 'qfedavg (fmnist-truth-dup-full-runs-s403/qfedavg)', \
       'shapley_distance.csv' skip 1 using 1:21 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#bcbd22' title 'fedfa (fmnist-truth-dup-full-runs-s403/fedfa)', \
       'shapley_distance.csv' skip 1 using 1:22 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#393b79' title 'gtg (fmnist-truth-dup-full-runs-s403/gtg)'
}
