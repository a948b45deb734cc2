# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 1000,400 font ',11' } else { set terminal svg size 1000,400 }
  set output 'truth04_removal.'.fmt
  set multiplot layout 1,2
  set datafile separator ','
  set xlabel 'clients removed'
  set ylabel 'accuracy'
  set grid
  set key top right font ',8'
  set title 'the most valued removed first (lower: better)' font ',10'
  plot 'truth04_removal.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#d62728' title 'flce', \
       'truth04_removal.csv' skip 1 using 1:4 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#1f77b4' title 'fedavg', \
       'truth04_removal.csv' skip 1 using 1:6 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#ff7f0e' title 'fedprox', \
       'truth04_removal.csv' skip 1 using 1:8 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#2ca02c' title 'ditto', \
       'truth04_removal.csv' skip 1 using 1:10 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#9467bd' title 'moon', \
       'truth04_removal.csv' skip 1 using 1:12 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#8c564b' title 'fedfv', \
       'truth04_removal.csv' skip 1 using 1:14 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#e377c2' title 'cgsv', \
       'truth04_removal.csv' skip 1 using 1:16 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#7f7f7f' title 'qfedavg', \
       'truth04_removal.csv' skip 1 using 1:18 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#bcbd22' title 'fedfa', \
       'truth04_removal.csv' skip 1 using 1:20 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#17becf' title 'fedsv', \
       'truth04_removal.csv' skip 1 using 1:22 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#393b79' title 'gtg', \
       'truth04_removal.csv' skip 1 using 1:24 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#000000' dt 2 title 'exact Shapley order'
  set datafile separator ','
  set xlabel 'clients removed'
  set ylabel 'accuracy'
  set grid
  set key bottom left font ',8'
  set title 'the least valued removed first (higher: better)' font ',10'
  plot 'truth04_removal.csv' skip 1 using 1:3 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#d62728' title 'flce', \
       'truth04_removal.csv' skip 1 using 1:5 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#1f77b4' title 'fedavg', \
       'truth04_removal.csv' skip 1 using 1:7 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#ff7f0e' title 'fedprox', \
       'truth04_removal.csv' skip 1 using 1:9 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#2ca02c' title 'ditto', \
       'truth04_removal.csv' skip 1 using 1:11 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#9467bd' title 'moon', \
       'truth04_removal.csv' skip 1 using 1:13 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#8c564b' title 'fedfv', \
       'truth04_removal.csv' skip 1 using 1:15 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#e377c2' title 'cgsv', \
       'truth04_removal.csv' skip 1 using 1:17 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#7f7f7f' title 'qfedavg', \
       'truth04_removal.csv' skip 1 using 1:19 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#bcbd22' title 'fedfa', \
       'truth04_removal.csv' skip 1 using 1:21 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#17becf' title 'fedsv', \
       'truth04_removal.csv' skip 1 using 1:23 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#393b79' title 'gtg', \
       'truth04_removal.csv' skip 1 using 1:25 with linespoints lw 2 pt 7 ps 0.7 lc rgb '#000000' dt 2 title 'exact Shapley order'
  unset multiplot
}
