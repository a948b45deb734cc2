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
  plot 'heterogeneity_00.csv' using 2:3 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'flce', 'heterogeneity_01.csv' using 2:3 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'fedavg', 'heterogeneity_02.csv' using 2:3 with linespoints lw 2 pt 7 lc rgb '#17becf' title 'fedsv', 'heterogeneity_03.csv' using 2:3 with linespoints lw 2 pt 7 lc rgb '#ff7f0e' title 'fedprox', 'heterogeneity_04.csv' using 2:3 with linespoints lw 2 pt 7 lc rgb '#2ca02c' title 'ditto', 'heterogeneity_05.csv' using 2:3 with linespoints lw 2 pt 7 lc rgb '#9467bd' title 'moon', 'heterogeneity_06.csv' using 2:3 with linespoints lw 2 pt 7 lc rgb '#8c564b' title 'fedfv', 'heterogeneity_07.csv' using 2:3 with linespoints lw 2 pt 7 lc rgb '#e377c2' title 'cgsv', 'heterogeneity_08.csv' using 2:3 with linespoints lw 2 pt 7 lc rgb '#7f7f7f' title 'qfedavg', 'heterogeneity_09.csv' using 2:3 with linespoints lw 2 pt 7 lc rgb '#bcbd22' title 'fedfa', 'heterogeneity_10.csv' using 2:3 with linespoints lw 2 pt 7 lc rgb '#393b79' title 'gtg'
  set ylabel 'KL(contributions || data shares)'
  plot 'heterogeneity_00.csv' using 2:4 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'flce', 'heterogeneity_01.csv' using 2:4 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'fedavg', 'heterogeneity_02.csv' using 2:4 with linespoints lw 2 pt 7 lc rgb '#17becf' title 'fedsv', 'heterogeneity_03.csv' using 2:4 with linespoints lw 2 pt 7 lc rgb '#ff7f0e' title 'fedprox', 'heterogeneity_04.csv' using 2:4 with linespoints lw 2 pt 7 lc rgb '#2ca02c' title 'ditto', 'heterogeneity_05.csv' using 2:4 with linespoints lw 2 pt 7 lc rgb '#9467bd' title 'moon', 'heterogeneity_06.csv' using 2:4 with linespoints lw 2 pt 7 lc rgb '#8c564b' title 'fedfv', 'heterogeneity_07.csv' using 2:4 with linespoints lw 2 pt 7 lc rgb '#e377c2' title 'cgsv', 'heterogeneity_08.csv' using 2:4 with linespoints lw 2 pt 7 lc rgb '#7f7f7f' title 'qfedavg', 'heterogeneity_09.csv' using 2:4 with linespoints lw 2 pt 7 lc rgb '#bcbd22' title 'fedfa', 'heterogeneity_10.csv' using 2:4 with linespoints lw 2 pt 7 lc rgb '#393b79' title 'gtg'
  unset multiplot
}
