# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 980,310 font ',11' } else { set terminal svg size 980,310 }
  set output 'conf24_rounds.'.fmt
  set multiplot layout 1,2
  set xlabel 'round'
  set grid
  set style fill transparent solid 0.15 noborder
  set key font ',9' spacing 0.9
  set ylabel 'test accuracy'
  set key bottom right
  plot 'conf24_rounds_33.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' notitle, \
       'conf24_rounds_34.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' notitle, \
       'conf24_rounds_35.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' notitle
  set ylabel 'KL(running contributions || data shares)'
  set key top right
  plot 'conf24_rounds_33.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'conf24_rounds_34.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'conf24_rounds_35.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)'
  unset multiplot
}
