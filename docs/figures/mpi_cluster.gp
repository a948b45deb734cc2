# made by flce-bench cluster; data: mpi_cluster.csv
set datafile separator ','
set key top right
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 900,520 } else { set terminal svg size 900,520 }
  set output 'mpi_cluster.'.fmt
  set logscale xy
  set grid
  set xlabel 'processes (mpirun -n P)'
  set ylabel 'seconds per round (log scale)'
  set title 'Paper scale (50 clients, 10 per round, ResNet20 on CIFAR-10): the model from rates measured here'
  plot 'mpi_cluster.csv' skip 1 using 1:2 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'FedAvg', \
       '' skip 1 using 1:3 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'FLCE', \
       '' skip 1 using 1:4 with linespoints lw 2 pt 7 lc rgb '#2ca02c' title 'FedSV (exact)'
}
