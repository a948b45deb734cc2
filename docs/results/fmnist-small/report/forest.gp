# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 1001,2086 font ',11' } else { set terminal svg size 1001,2086 }
  set output 'forest.'.fmt
  set multiplot
  set lmargin at screen 0.4006
  set rmargin at screen 0.9700
  set grid xtics
  set key off
  set xtics font ',9'
  set ytics font ',9'
  set xlabel 'mean paired difference, turned: right of 0 is the claim side' font ',9' offset 0,0.5
  set tmargin at screen 0.9847
  set bmargin at screen 0.8802
  set title 'FLCE accuracy at least every baseline' font ',10' offset 0,-0.4
  set xrange [-0.094684:0.0684332]
  set yrange [-0.6:9.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_00.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.8456
  set bmargin at screen 0.7411
  set title 'FLCE macro-F1 at least every baseline' font ',10' offset 0,-0.4
  set xrange [-0.117187:0.0814807]
  set yrange [-0.6:9.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_01.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.7066
  set bmargin at screen 0.6309
  set title 'FLCE KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.45959:0.192195]
  set yrange [-0.6:6.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_02.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.5964
  set bmargin at screen 0.4919
  set title 'FLCE closer to canonical Shapley than the other non-Shapley methods' font ',10' offset 0,-0.4
  set xrange [-2.68682:5.6875]
  set yrange [-0.6:9.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_03.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.4573
  set bmargin at screen 0.3528
  set title 'FLCE second only to FedSV under diversity-weighted KL' font ',10' offset 0,-0.4
  set xrange [-1.54507:0.163256]
  set yrange [-0.6:9.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_04.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.3183
  set bmargin at screen 0.2138
  set title 'each ablation raises KL' font ',10' offset 0,-0.4
  set xrange [-0.0594836:0.0955047]
  set yrange [-0.6:9.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_05.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.1793
  set bmargin at screen 0.1419
  set title 'FLCE KL the lowest under noise' font ',10' offset 0,-0.4
  set xrange [-0.126553:0.00716336]
  set yrange [-0.6:2.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_06.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.1074
  set bmargin at screen 0.0892
  set title 'FLCE KL falls as the Dirichlet parameter grows' font ',10' offset 0,-0.4
  set xrange [-0.0371888:0.657002]
  set yrange [-0.6:0.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_07.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.0547
  set bmargin at screen 0.0364
  set title 'FLCE accuracy rises as the Dirichlet parameter grows' font ',10' offset 0,-0.4
  set xrange [-0.0161273:0.284915]
  set yrange [-0.6:0.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_08.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.9847
  set bmargin at screen 0.0364
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
