# made by flce report
do for [fmt in 'png svg'] {
  reset
  set datafile separator ','
  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }
  set output 'class_contributions_363.'.fmt
  set multiplot layout 1,2 title 'FLCE class contributions: flce (fmnist-truth-dup-k-runs-s404/flce)'
  set style data histograms
  set style fill solid 0.85
  set xlabel 'class'
  set ylabel 'share'
  set key below horizontal
  set yrange [0:*]
  plot 'class_global_363.csv' skip 1 using 2:xtic(1) title 'contribution' lc rgb '#e15759', '' skip 1 using 3 title 'class weight' lc rgb '#bbbbbb'
  set style data lines
  set xtics 1
  set ytics 1
  set xrange [-0.5:9.5]
  set yrange [-0.5:5.5]
  set xlabel 'class'
  set ylabel 'client'
  unset key
  set cblabel 'b_c sum_t X'
  set cbrange [0:*]
  set palette defined (0 '#ffffff', 0.35 '#fdbb84', 0.7 '#e34a33', 1 '#7f0000')
  plot 'class_contributions_363.csv' matrix rowheaders columnheaders using 1:2:3 with image pixels
  unset multiplot
}
