# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }
  set output 'heterogeneity.'.fmt
  set multiplot layout 1,2
  set logscale x
  set xrange [0.0714286:7]
  set xlabel 'Dirichlet parameter (log scale)'
  set grid
  set key below horizontal font ',9'
  set xtics (0.1, 0.3, 0.5, 1, 5)
  set ylabel 'accuracy'
  plot 'heterogeneity_00.csv' skip 1 using 2:3:4:5 with yerrorlines lw 2 pt 7 lc rgb '#d62728' title 'flce', 'heterogeneity_01.csv' skip 1 using 2:3:4:5 with yerrorlines lw 2 pt 7 lc rgb '#1f77b4' title 'fedavg', 'heterogeneity_02.csv' skip 1 using 2:3:4:5 with yerrorlines lw 2 pt 7 lc rgb '#17becf' title 'fedsv', 'heterogeneity_03.csv' skip 1 using 2:3:4:5 with yerrorlines lw 2 pt 7 lc rgb '#ff7f0e' title 'fedprox', 'heterogeneity_04.csv' skip 1 using 2:3:4:5 with yerrorlines lw 2 pt 7 lc rgb '#2ca02c' title 'ditto', 'heterogeneity_05.csv' skip 1 using 2:3:4:5 with yerrorlines lw 2 pt 7 lc rgb '#9467bd' title 'moon', 'heterogeneity_06.csv' skip 1 using 2:3:4:5 with yerrorlines lw 2 pt 7 lc rgb '#8c564b' title 'fedfv', 'heterogeneity_07.csv' skip 1 using 2:3:4:5 with yerrorlines lw 2 pt 7 lc rgb '#e377c2' title 'cgsv', 'heterogeneity_08.csv' skip 1 using 2:3:4:5 with yerrorlines lw 2 pt 7 lc rgb '#7f7f7f' title 'qfedavg', 'heterogeneity_09.csv' skip 1 using 2:3:4:5 with yerrorlines lw 2 pt 7 lc rgb '#bcbd22' title 'fedfa', 'heterogeneity_10.csv' skip 1 using 2:3:4:5 with yerrorlines lw 2 pt 7 lc rgb '#393b79' title 'gtg'
  set ylabel 'KL(contributions || data shares)'
  plot 'heterogeneity_00.csv' skip 1 using 2:6:7:8 with yerrorlines lw 2 pt 7 lc rgb '#d62728' title 'flce', 'heterogeneity_01.csv' skip 1 using 2:6:7:8 with yerrorlines lw 2 pt 7 lc rgb '#1f77b4' title 'fedavg', 'heterogeneity_02.csv' skip 1 using 2:6:7:8 with yerrorlines lw 2 pt 7 lc rgb '#17becf' title 'fedsv', 'heterogeneity_03.csv' skip 1 using 2:6:7:8 with yerrorlines lw 2 pt 7 lc rgb '#ff7f0e' title 'fedprox', 'heterogeneity_04.csv' skip 1 using 2:6:7:8 with yerrorlines lw 2 pt 7 lc rgb '#2ca02c' title 'ditto', 'heterogeneity_05.csv' skip 1 using 2:6:7:8 with yerrorlines lw 2 pt 7 lc rgb '#9467bd' title 'moon', 'heterogeneity_06.csv' skip 1 using 2:6:7:8 with yerrorlines lw 2 pt 7 lc rgb '#8c564b' title 'fedfv', 'heterogeneity_07.csv' skip 1 using 2:6:7:8 with yerrorlines lw 2 pt 7 lc rgb '#e377c2' title 'cgsv', 'heterogeneity_08.csv' skip 1 using 2:6:7:8 with yerrorlines lw 2 pt 7 lc rgb '#7f7f7f' title 'qfedavg', 'heterogeneity_09.csv' skip 1 using 2:6:7:8 with yerrorlines lw 2 pt 7 lc rgb '#bcbd22' title 'fedfa', 'heterogeneity_10.csv' skip 1 using 2:6:7:8 with yerrorlines lw 2 pt 7 lc rgb '#393b79' title 'gtg'
  unset multiplot
}
