# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 1163,2536 font ',11' } else { set terminal svg size 1163,2536 }
  set output 'forest.'.fmt
  set multiplot
  set lmargin at screen 0.4841
  set rmargin at screen 0.9742
  set grid xtics
  set key off
  set xtics font ',9'
  set ytics font ',9'
  set xlabel 'mean paired difference, turned: right of 0 is the claim side' font ',9' offset 0,0.5
  set tmargin at screen 0.9874
  set bmargin at screen 0.9093
  set title 'FLCE accuracy at least every baseline' font ',10' offset 0,-0.4
  set xrange [-0.0539794:0.058255]
  set yrange [-0.6:8.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_00.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.8809
  set bmargin at screen 0.8028
  set title 'FLCE macro-F1 at least every baseline' font ',10' offset 0,-0.4
  set xrange [-0.0693517:0.0738062]
  set yrange [-0.6:8.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_01.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.7744
  set bmargin at screen 0.7279
  set title 'FLCE KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.165402:0.091293]
  set yrange [-0.6:4.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_02.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.6995
  set bmargin at screen 0.6215
  set title 'FLCE closer to canonical Shapley than the other non-Shapley methods' font ',10' offset 0,-0.4
  set xrange [-5.77201:6.555]
  set yrange [-0.6:8.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_03.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.5931
  set bmargin at screen 0.5150
  set title 'FLCE second only to FedSV under diversity-weighted KL' font ',10' offset 0,-0.4
  set xrange [-1.81857:0.168092]
  set yrange [-0.6:8.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_04.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.4866
  set bmargin at screen 0.4401
  set title 'Released metric: FLCE min-max KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.216612:0.224063]
  set yrange [-0.6:4.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_05.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.4117
  set bmargin at screen 0.3651
  set title 'Released metric and L2 rule: FLCE min-max KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.24104:0.381721]
  set yrange [-0.6:4.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_06.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.3368
  set bmargin at screen 0.2981
  set title 'Released evaluation and metric: FLCE min-max KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.442355:0.223053]
  set yrange [-0.6:3.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_07.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.2697
  set bmargin at screen 0.2311
  set title 'FLCE KL the lowest under noise' font ',10' offset 0,-0.4
  set xrange [-0.184214:0.10536]
  set yrange [-0.6:3.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_08.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.2027
  set bmargin at screen 0.1640
  set title 'Released metric: FLCE min-max KL to the quality reference the lowest under noise' font ',10' offset 0,-0.4
  set xrange [-2.73827:3.44556]
  set yrange [-0.6:3.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_09.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.1356
  set bmargin at screen 0.0970
  set title 'Released metric and L2 rule: FLCE min-max KL to the quality reference the lowest under noise' font ',10' offset 0,-0.4
  set xrange [-2.35497:2.10637]
  set yrange [-0.6:3.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_10.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.0686
  set bmargin at screen 0.0300
  set title 'Released evaluation and metric: FLCE min-max KL to the quality reference the lowest under noise' font ',10' offset 0,-0.4
  set xrange [-3.44067:3.80406]
  set yrange [-0.6:3.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_11.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.9874
  set bmargin at screen 0.0300
  set lmargin at screen 0.0344
  set rmargin at screen 0.0353
  unset title
  unset xlabel
  unset arrow
  unset border
  unset tics
  unset grid
  set xrange [0:1]
  set yrange [0:1]
  set ylabel 'configuration (a row each, in every panel)' font ',9'
  plot NaN notitle
  unset multiplot
}
