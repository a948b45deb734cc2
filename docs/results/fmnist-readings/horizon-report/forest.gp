# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 1000,686 font ',11' } else { set terminal svg size 1000,686 }
  set output 'forest.'.fmt
  set multiplot
  set lmargin at screen 0.4000
  set rmargin at screen 0.9700
  set grid xtics
  set key off
  set xtics font ',9'
  set ytics font ',9'
  set xlabel 'mean paired difference, turned: right of 0 is the claim side' font ',9' offset 0,0.5
  set tmargin at screen 0.9534
  set bmargin at screen 0.8688
  set title 'FLCE accuracy at least every baseline' font ',10' offset 0,-0.4
  set xrange [-0.0296532:0.00167849]
  set yrange [-0.6:1.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_00.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.7638
  set bmargin at screen 0.6793
  set title 'FLCE macro-F1 at least every baseline' font ',10' offset 0,-0.4
  set xrange [-0.041817:0.002367]
  set yrange [-0.6:1.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_01.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.5743
  set bmargin at screen 0.4898
  set title 'FLCE KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.232496:0.0802605]
  set yrange [-0.6:1.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_02.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.3848
  set bmargin at screen 0.3003
  set title 'FLCE second only to FedSV under diversity-weighted KL' font ',10' offset 0,-0.4
  set xrange [-0.234662:0.0930278]
  set yrange [-0.6:1.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_03.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.1953
  set bmargin at screen 0.1108
  set title 'Released metric: FLCE min-max KL the lowest except FedSV' font ',10' offset 0,-0.4
  set xrange [-0.205141:0.137963]
  set yrange [-0.6:1.4]
  unset arrow
  set arrow from first 0, graph 0 to first 0, graph 1 nohead dt 2 lc rgb '#444444'
  plot 'forest_04.csv' skip 1 using 2:1:3:4:5:ytic(6) with xerrorbars pt 7 ps 0.8 lw 2 lc rgb variable notitle
  set tmargin at screen 0.9534
  set bmargin at screen 0.1108
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
