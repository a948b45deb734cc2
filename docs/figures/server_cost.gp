# made by flce-bench server; data: server_methods.csv, server_scaling.csv
set datafile separator ','
set key top left
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 900,520 } else { set terminal svg size 900,520 }
  set output 'server_cost.'.fmt
  set logscale y
  set style data histograms
  set style fill solid 0.85
  set xtics rotate by -35
  set ylabel 'server seconds per round (log scale)'
  set title 'Server cost per round: K = 10 of 50 clients, ResNet20, CPU (Shapley rows estimated)'
  plot 'server_methods.csv' skip 1 using 2:xtic(1) title '10 classes' lc rgb '#1f77b4', \
       '' skip 1 using 3 title '100 classes' lc rgb '#ff7f0e'
  set style data linespoints
  set xtics norotate
  set output 'server_scaling.'.fmt
  set logscale xy
  set xlabel 'parameters aggregated per client'
  set ylabel 'server seconds per round (log scale)'
  set title 'Server cost against model size, K = 10'
  plot 'server_scaling.csv' skip 1 using 1:2 title 'FedAvg' lw 2 lc rgb '#1f77b4', \
       '' skip 1 using 1:3 title 'FLCE (per round)' lw 2 lc rgb '#d62728'
  set output 'server_totals.'.fmt
  set logscale xy
  set key top right
  set yrange [1:5000]
  set xlabel 'rounds'
  set ylabel 'FLCE total server time / FedAvg (log scale)'
  set title 'The whole run: rounds + completion, K = 10 of 50, ResNet20'
  plot 'server_totals.csv' skip 1 using 1:2 title 'fixed rank, 10 classes' lw 2 lc rgb '#1f77b4', \
       '' skip 1 using 1:3 title 'auto, 10 classes' lw 2 dt 2 lc rgb '#1f77b4', \
       '' skip 1 using 1:4 title 'fixed rank, 100 classes' lw 2 lc rgb '#d62728', \
       '' skip 1 using 1:5 title 'auto, 100 classes' lw 2 dt 2 lc rgb '#d62728'
  unset logscale
  unset xlabel
  set autoscale y
  set key top left
}
