# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 1066,1496 font ',11' } else { set terminal svg size 1066,1496 }
  set output 'forest.'.fmt
  set multiplot
  set lmargin at screen 0.4371
  set rmargin at screen 0.9719
  set grid xtics
  set key off
  set xtics font ',9'
  set ytics font ',9'
  set xlabel 'mean paired difference, turned: right of 0 is the claim side' font ',9' offset 0,0.5
  set tmargin at screen 0.9786
  set bmargin at screen 0.8997
  set title 'FLCE accuracy at least every baseline' font ',10' offset 0,-0.4
  set xrange [-0.0531529:0.0436532]
  set yrange [-0.6:4.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_00.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.8516
  set bmargin at screen 0.7727
  set title 'FLCE macro-F1 at least every baseline' font ',10' offset 0,-0.4
  set xrange [-0.0684239:0.0574141]
  set yrange [-0.6:4.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_01.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.7246
  set bmargin at screen 0.6457
  set title 'FLCE KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.165402:0.091293]
  set yrange [-0.6:4.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_02.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.5976
  set bmargin at screen 0.5187
  set title 'FLCE closer to canonical Shapley than the other non-Shapley methods' font ',10' offset 0,-0.4
  set xrange [-4.2023:6.46615]
  set yrange [-0.6:4.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_03.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.4706
  set bmargin at screen 0.3917
  set title 'FLCE second only to FedSV under diversity-weighted KL' font ',10' offset 0,-0.4
  set xrange [-1.81857:0.168092]
  set yrange [-0.6:4.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_04.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.3436
  set bmargin at screen 0.2647
  set title 'Released metric: FLCE min-max KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.216612:0.224063]
  set yrange [-0.6:4.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_05.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.2166
  set bmargin at screen 0.1377
  set title 'Released metric and L2 rule: FLCE min-max KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.24104:0.381721]
  set yrange [-0.6:4.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_06.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.0896
  set bmargin at screen 0.0508
  set title 'Released evaluation and metric: FLCE min-max KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.442355:0.223053]
  set yrange [-0.6:1.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_07.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.9786
  set bmargin at screen 0.0508
  set lmargin at screen 0.0375
  set rmargin at screen 0.0385
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
