# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 330,250 font ',11' } else { set terminal svg size 330,250 }
  set output 'conf01_classes.'.fmt
  set style data histograms
  set style histogram errorbars gap 1 lw 1
  set style fill solid 0.85
  set xlabel 'class'
  set ylabel 'share' font ',9'
  set key top right
  set yrange [0:*]
  set key font ',8'
  set xtics font ',8'
  set ytics font ',8'
  plot 'conf01_classes.csv' skip 1 using 2:3:4:xtic(1) title 'FLCE (3 seeds)' lc rgb '#d62728', '' skip 1 using 5:5:5 title 'class weight' lc rgb '#bbbbbb'
}
