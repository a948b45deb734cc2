# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 1001,2596 font ',11' } else { set terminal svg size 1001,2596 }
  set output 'forest.'.fmt
  set multiplot
  set lmargin at screen 0.4006
  set rmargin at screen 0.9700
  set grid xtics
  set key off
  set xtics font ',9'
  set ytics font ',9'
  set xlabel 'mean paired difference, turned: right of 0 is the claim side' font ',9' offset 0,0.5
  set tmargin at screen 0.9877
  set bmargin at screen 0.9037
  set title 'FLCE accuracy at least every baseline' font ',10' offset 0,-0.4
  set xrange [-0.0946797:0.0684279]
  set yrange [-0.6:9.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_00.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.8760
  set bmargin at screen 0.7920
  set title 'FLCE macro-F1 at least every baseline' font ',10' offset 0,-0.4
  set xrange [-0.117182:0.0814748]
  set yrange [-0.6:9.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_01.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.7643
  set bmargin at screen 0.7034
  set title 'FLCE KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.459577:0.192185]
  set yrange [-0.6:6.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_02.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.6757
  set bmargin at screen 0.5917
  set title 'FLCE closer to canonical Shapley than the other non-Shapley methods' font ',10' offset 0,-0.4
  set xrange [-2.68667:5.68733]
  set yrange [-0.6:9.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_03.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.5639
  set bmargin at screen 0.4800
  set title 'FLCE second only to FedSV under diversity-weighted KL' font ',10' offset 0,-0.4
  set xrange [-1.54502:0.163197]
  set yrange [-0.6:9.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_04.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.4522
  set bmargin at screen 0.3914
  set title 'Released metric: FLCE min-max KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.262991:0.299015]
  set yrange [-0.6:6.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_05.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.3636
  set bmargin at screen 0.3413
  set title 'Released evaluation and metric: FLCE min-max KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.142467:0.117019]
  set yrange [-0.6:1.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_06.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.3136
  set bmargin at screen 0.2296
  set title 'each ablation raises KL' font ',10' offset 0,-0.4
  set xrange [-0.0594774:0.0954984]
  set yrange [-0.6:9.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_07.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.2018
  set bmargin at screen 0.1718
  set title 'FLCE KL the lowest under noise' font ',10' offset 0,-0.4
  set xrange [-0.126548:0.00716309]
  set yrange [-0.6:2.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_08.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.1441
  set bmargin at screen 0.1140
  set title 'Released metric: FLCE min-max KL to the quality reference the lowest under noise' font ',10' offset 0,-0.4
  set xrange [-3.87201:2.51316]
  set yrange [-0.6:2.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_09.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.0863
  set bmargin at screen 0.0716
  set title 'FLCE KL falls as the Dirichlet parameter grows' font ',10' offset 0,-0.4
  set xrange [-0.0371875:0.65698]
  set yrange [-0.6:0.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_10.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.0439
  set bmargin at screen 0.0293
  set title 'FLCE accuracy rises as the Dirichlet parameter grows' font ',10' offset 0,-0.4
  set xrange [-0.016127:0.284911]
  set yrange [-0.6:0.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_11.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.9877
  set bmargin at screen 0.0293
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
