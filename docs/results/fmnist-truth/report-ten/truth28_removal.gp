# made by flce report
do for [fmt in 'png svg'] {
  reset
  set datafile separator ','
  if (fmt eq 'png') { set terminal pngcairo size 1000,472 font ',11' } else { set terminal svg size 1000,472 }
  set output 'truth28_removal.'.fmt
  set multiplot layout 1,2
  set datafile separator ','
  set xlabel 'clients removed'
  set ylabel 'accuracy'
  set grid
  set xrange [0:5]
  set xtics 1
  set format x '%.0f'
  set key below horizontal maxcols 3 font ',10'
  set title 'the most valued removed first (lower: better)' font ',11'
  plot 'truth28_removal.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#e15759' title 'flce', \
       'truth28_removal.csv' skip 1 using 1:4 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#4e79a7' title 'fedavg', \
       'truth28_removal.csv' skip 1 using 1:6 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#f28e2b' title 'fedprox', \
       'truth28_removal.csv' skip 1 using 1:8 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#59a14f' title 'ditto', \
       'truth28_removal.csv' skip 1 using 1:10 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#b07aa1' title 'moon', \
       'truth28_removal.csv' skip 1 using 1:12 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#9c755f' title 'fedfv', \
       'truth28_removal.csv' skip 1 using 1:14 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#ff9da7' title 'cgsv', \
       'truth28_removal.csv' skip 1 using 1:16 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#bab0ac' title 'qfedavg', \
       'truth28_removal.csv' skip 1 using 1:18 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#edc948' title 'fedfa', \
       'truth28_removal.csv' skip 1 using 1:20 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#76b7b2' title 'fedsv', \
       'truth28_removal.csv' skip 1 using 1:22 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#000000' title 'gtg', \
       'truth28_removal.csv' skip 1 using 1:24 with linespoints lw 2 pt 6 ps 0.7 lc rgb '#777777' dt 2 title 'exact Shapley order'
  set datafile separator ','
  set xlabel 'clients removed'
  set ylabel 'accuracy'
  set grid
  set xrange [0:5]
  set xtics 1
  set format x '%.0f'
  set key below horizontal maxcols 3 font ',10'
  set title 'the least valued removed first (higher: better)' font ',11'
  plot 'truth28_removal.csv' skip 1 using 1:3 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#e15759' title 'flce', \
       'truth28_removal.csv' skip 1 using 1:5 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#4e79a7' title 'fedavg', \
       'truth28_removal.csv' skip 1 using 1:7 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#f28e2b' title 'fedprox', \
       'truth28_removal.csv' skip 1 using 1:9 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#59a14f' title 'ditto', \
       'truth28_removal.csv' skip 1 using 1:11 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#b07aa1' title 'moon', \
       'truth28_removal.csv' skip 1 using 1:13 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#9c755f' title 'fedfv', \
       'truth28_removal.csv' skip 1 using 1:15 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#ff9da7' title 'cgsv', \
       'truth28_removal.csv' skip 1 using 1:17 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#bab0ac' title 'qfedavg', \
       'truth28_removal.csv' skip 1 using 1:19 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#edc948' title 'fedfa', \
       'truth28_removal.csv' skip 1 using 1:21 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#76b7b2' title 'fedsv', \
       'truth28_removal.csv' skip 1 using 1:23 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#000000' title 'gtg', \
       'truth28_removal.csv' skip 1 using 1:25 with linespoints lw 2 pt 6 ps 0.7 lc rgb '#777777' dt 2 title 'exact Shapley order'
  unset multiplot
}
