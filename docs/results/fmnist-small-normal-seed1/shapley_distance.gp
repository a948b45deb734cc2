# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }
  set output 'shapley_distance.'.fmt
  set xlabel 'round'
  set ylabel 'Euclidean distance to exact Shapley'
  set key outside right
  set grid
  plot 'shapley_distance.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#d62728' title 'flce (fmnist-noniid-s1/flce)', \
       'shapley_distance.csv' skip 1 using 1:3 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#1f77b4' title 'fedavg (fmnist-noniid-s1/fedavg)', \
       'shapley_distance.csv' skip 1 using 1:4 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#ff7f0e' title 'fedprox (fmnist-noniid-s1/fedprox)', \
       'shapley_distance.csv' skip 1 using 1:5 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#2ca02c' title 'ditto (fmnist-noniid-s1/ditto)', \
       'shapley_distance.csv' skip 1 using 1:6 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#9467bd' title 'moon (fmnist-noniid-s1/moon)', \
       'shapley_distance.csv' skip 1 using 1:7 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#8c564b' title 'fedfv (fmnist-noniid-s1/fedfv)', \
       'shapley_distance.csv' skip 1 using 1:8 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#e377c2' title 'cgsv (fmnist-noniid-s1/cgsv)', \
       'shapley_distance.csv' skip 1 using 1:9 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#7f7f7f' title 'qfedavg (fmnist-noniid-s1/qfedavg)', \
       'shapley_distance.csv' skip 1 using 1:10 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#bcbd22' title 'fedfa (fmnist-noniid-s1/fedfa)', \
       'shapley_distance.csv' skip 1 using 1:11 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#393b79' title 'gtg (fmnist-noniid-s1/gtg)'
}
