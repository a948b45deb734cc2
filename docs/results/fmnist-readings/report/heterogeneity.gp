# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }
  set output 'heterogeneity.'.fmt
  set multiplot layout 1,2
  set logscale x
  set xlabel 'Dirichlet parameter (log scale)'
  set grid
  set key bottom right
  set ylabel 'accuracy'
  plot 'heterogeneity_00.csv' using 2:3 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'flce', 'heterogeneity_01.csv' using 2:3 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'fedavg', 'heterogeneity_02.csv' using 2:3 with linespoints lw 2 pt 7 lc rgb '#ff7f0e' title 'fedprox', 'heterogeneity_03.csv' using 2:3 with linespoints lw 2 pt 7 lc rgb '#8c564b' title 'fedfv'
  set ylabel 'KL(contributions || data shares)'
  plot 'heterogeneity_00.csv' using 2:4 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'flce', 'heterogeneity_01.csv' using 2:4 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'fedavg', 'heterogeneity_02.csv' using 2:4 with linespoints lw 2 pt 7 lc rgb '#ff7f0e' title 'fedprox', 'heterogeneity_03.csv' using 2:4 with linespoints lw 2 pt 7 lc rgb '#8c564b' title 'fedfv'
  unset multiplot
}
