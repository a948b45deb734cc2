# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 980,310 font ',11' } else { set terminal svg size 980,310 }
  set output 'conf29_rounds.'.fmt
  set multiplot layout 1,2
  set xlabel 'round'
  set grid
  set style fill transparent solid 0.15 noborder
  set key font ',9' spacing 0.9
  set ylabel 'test accuracy'
  set key bottom right
  plot 'conf29_rounds_43.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' notitle, \
       'conf29_rounds_44.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' notitle
  set ylabel 'KL(running contributions || data shares)'
  set key top right
  plot 'conf29_rounds_43.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'conf29_rounds_44.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)'
  unset multiplot
}
