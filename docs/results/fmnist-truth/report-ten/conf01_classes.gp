# made by flce report
do for [fmt in 'png svg'] {
  reset
  set datafile separator ','
  if (fmt eq 'png') { set terminal pngcairo size 330,270 font ',11' } else { set terminal svg size 330,270 }
  set output 'conf01_classes.'.fmt
  set style data histograms
  set style histogram errorbars gap 1 lw 1
  set style fill solid 0.85
  set xlabel 'class' font ',10'
  set ylabel 'share' font ',10'
  set key below horizontal font ',10'
  set yrange [0:*]
  set xtics font ',9'
  set ytics font ',9'
  plot 'conf01_classes.csv' skip 1 using 2:3:4:xtic(1) title 'FLCE (7 seeds)' lc rgb '#e15759', '' skip 1 using 5:5:5 title 'class weight' lc rgb '#bbbbbb'
}
