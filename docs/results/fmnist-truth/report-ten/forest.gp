# made by flce report
do for [fmt in 'png svg'] {
  reset
  set datafile separator ','
  if (fmt eq 'png') { set terminal pngcairo size 1000,1476 font ',11' } else { set terminal svg size 1000,1476 }
  set output 'forest.'.fmt
  set multiplot
  set lmargin at screen 0.4000
  set rmargin at screen 0.9700
  set grid xtics
  set key off
  set xtics font ',9'
  set ytics font ',9' noenhanced
  set format x '%g'
  set xlabel 'mean paired difference, turned: right of 0 is the claim side' font ',9' offset 0,0.5
  set tmargin at screen 0.9783
  set bmargin at screen 0.9119
  set title 'FLCE accuracy at least every baseline' font ',10' offset 0,-0.4
  set xrange [-0.0482973:0.0130254]
  set yrange [-0.6:3.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_00.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.8631
  set bmargin at screen 0.7967
  set title 'FLCE macro-F1 at least every baseline' font ',10' offset 0,-0.4
  set xrange [-0.052266:0.0139893]
  set yrange [-0.6:3.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_01.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.7480
  set bmargin at screen 0.6951
  set title 'FLCE KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.180992:0.0675882]
  set yrange [-0.6:2.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_02.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.6463
  set bmargin at screen 0.5799
  set title 'FLCE closer to canonical Shapley than the other non-Shapley methods' font ',10' offset 0,-0.4
  set xrange [-2.31634:2.88782]
  set yrange [-0.6:3.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_03.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.5312
  set bmargin at screen 0.4648
  set title 'FLCE second only to FedSV under diversity-weighted KL' font ',10' offset 0,-0.4
  set xrange [-0.749662:0.0424337]
  set yrange [-0.6:3.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_04.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.4160
  set bmargin at screen 0.3631
  set title 'Released metric: FLCE min-max KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.213283:0.0972882]
  set yrange [-0.6:2.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_05.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.3144
  set bmargin at screen 0.2751
  set title 'Released metric and L2 rule: FLCE min-max KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.174389:0.100316]
  set yrange [-0.6:1.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_06.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.2263
  set bmargin at screen 0.2005
  set title 'FLCE KL the lowest under noise' font ',10' offset 0,-0.4
  set xrange [-0.0256594:0.0283702]
  set yrange [-0.6:0.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_07.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.1518
  set bmargin at screen 0.1260
  set title 'Released metric: FLCE min-max KL to the quality reference the lowest under noise' font ',10' offset 0,-0.4
  set xrange [-0.196773:3.27984]
  set yrange [-0.6:0.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_08.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.0772
  set bmargin at screen 0.0515
  set title 'Released metric and L2 rule: FLCE min-max KL to the quality reference the lowest under noise' font ',10' offset 0,-0.4
  set xrange [-0.687035:2.92577]
  set yrange [-0.6:0.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_09.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.9783
  set bmargin at screen 0.0515
  set lmargin at screen 0.0400
  set rmargin at screen 0.0410
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
