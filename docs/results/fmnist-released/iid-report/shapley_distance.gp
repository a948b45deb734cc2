# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }
  set output 'shapley_distance.'.fmt
  set xlabel 'round'
  set ylabel 'Euclidean distance to exact Shapley'
  set key outside right
  set grid
  plot 'shapley_distance.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#d62728' title 'flce (fmnist-rel-iid-text-s303/flce)', \
       'shapley_distance.csv' skip 1 using 1:3 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#1f77b4' title 'fedavg (fmnist-rel-iid-text-s303/fedavg)', \
       'shapley_distance.csv' skip 1 using 1:4 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#17becf' title 'fedsv (fmnist-rel-iid-text-s303/fedsv)', \
       'shapley_distance.csv' skip 1 using 1:5 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#d62728' dt 2 title 'flce -CMC (fmnist-rel-iid-released-s303/flce)', \
       'shapley_distance.csv' skip 1 using 1:6 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#1f77b4' title 'fedavg (fmnist-rel-iid-released-s303/fedavg)', \
       'shapley_distance.csv' skip 1 using 1:7 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#17becf' title 'fedsv (fmnist-rel-iid-released-s303/fedsv)', \
       'shapley_distance.csv' skip 1 using 1:8 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#d62728' title 'flce (released/fmnist-rel-iid-first-s303)', \
       'shapley_distance.csv' skip 1 using 1:9 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#d62728' title 'flce (released/fmnist-rel-iid-sweep-s303)', \
       'shapley_distance.csv' skip 1 using 1:10 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#d62728' title 'flce (released/fmnist-rel-iid-initial-s303)', \
       'shapley_distance.csv' skip 1 using 1:11 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#17becf' title 'fedsv (released/fmnist-rel-iid-fedsvrel-s303)', \
       'shapley_distance.csv' skip 1 using 1:12 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#d62728' title 'flce (fmnist-rel-iid-localtrain-s303/flce)', \
       'shapley_distance.csv' skip 1 using 1:13 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#1f77b4' title 'fedavg (fmnist-rel-iid-localtrain-s303/fedavg)', \
       'shapley_distance.csv' skip 1 using 1:14 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#d62728' title 'flce (released/fmnist-rel-iid-clscale-s303)', \
       'shapley_distance.csv' skip 1 using 1:15 with linespoints lw 2 pt 7 ps 0.5 lc rgb '#1f77b4' title 'fedavg (fmnist-rel-iid-mean-s303/fedavg)'
}
