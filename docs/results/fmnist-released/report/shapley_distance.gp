# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }
  set output 'shapley_distance.'.fmt
  set xlabel 'round'
  set ylabel 'Euclidean distance to exact Shapley'
  set key outside right
  set grid
  plot 'shapley_distance.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#d62728' title 'flce (fmnist-rel-noise-noisecode-s303/flce)', \
       'shapley_distance.csv' skip 1 using 1:3 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#1f77b4' title 'fedavg (fmnist-rel-noise-noisecode-s303/fedavg)'
}
