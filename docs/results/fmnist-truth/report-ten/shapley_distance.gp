# made by flce report
do for [fmt in 'png svg'] {
  reset
  set datafile separator ','
  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }
  set output 'shapley_distance.'.fmt
  set xlabel 'round'
  set ylabel 'Euclidean distance to exact Shapley'
  set key outside right
  set grid
  plot 'shapley_distance.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#e15759' title 'flce (fmnist-truth-dup-k-runs-s410/flce)', \
       'shapley_distance.csv' skip 1 using 1:3 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#4e79a7' title 'fedavg (fmnist-truth-dup-k-runs-s410/fedavg)', \
       'shapley_distance.csv' skip 1 using 1:4 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#f28e2b' title 'fedprox (fmnist-truth-dup-k-runs-s410/fedprox)', \
       'shapley_distance.csv' skip 1 using 1:5 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#59a14f' title 'ditto (fmnist-truth-dup-k-runs-s410/ditto)', \
       'shapley_distance.csv' skip 1 using 1:6 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#b07aa1' title 'moon (fmnist-truth-dup-k-runs-s410/moon)', \
       'shapley_distance.csv' skip 1 using 1:7 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#9c755f' title 'fedfv (fmnist-truth-dup-k-runs-s410/fedfv)', \
       'shapley_distance.csv' skip 1 using 1:8 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#ff9da7' title 'cgsv (fmnist-truth-dup-k-runs-s410/cgsv)', \
       'shapley_distance.csv' skip 1 using 1:9 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#bab0ac' title 'qfedavg (fmnist-truth-dup-k-runs-s410/qfedavg)', \
       'shapley_distance.csv' skip 1 using 1:10 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#edc948' title 'fedfa (fmnist-truth-dup-k-runs-s410/fedfa)', \
       'shapley_distance.csv' skip 1 using 1:11 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#000000' title 'gtg (fmnist-truth-dup-k-runs-s410/gtg)'
}
