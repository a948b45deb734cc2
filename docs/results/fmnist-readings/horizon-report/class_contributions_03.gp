# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }
  set output 'class_contributions_03.'.fmt
  set multiplot layout 1,2 title 'FLCE class contributions: flce (fmnist-horizon-iid-s202/flce)'
  set style data histograms
  set style fill solid 0.85
  set xlabel 'class'
  set ylabel 'share'
  set key top left
  plot 'class_global_03.csv' skip 1 using 2:xtic(1) title 'contribution' lc rgb '#d62728', '' skip 1 using 3 title 'class weight' lc rgb '#bbbbbb'
  set style data lines
  set xtics autofreq
  set xlabel 'class'
  set ylabel 'client'
  unset key
  set view map
  set cblabel 'b_c sum_t X'
  plot 'class_contributions_03.csv' matrix rowheaders columnheaders using 1:2:3 with image
  unset multiplot
}
