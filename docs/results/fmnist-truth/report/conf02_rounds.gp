# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 980,310 font ',11' } else { set terminal svg size 980,310 }
  set output 'conf02_rounds.'.fmt
  set multiplot layout 1,2
  set xlabel 'round'
  set grid
  set style fill transparent solid 0.15 noborder
  set key font ',9' spacing 0.9
  set ylabel 'test accuracy'
  set key bottom right
  plot 'conf02_rounds_33.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' notitle, \
       'conf02_rounds_34.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' notitle, \
       'conf02_rounds_35.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#ff7f0e' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#ff7f0e' notitle, \
       'conf02_rounds_36.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#2ca02c' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#2ca02c' notitle, \
       'conf02_rounds_37.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#9467bd' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#9467bd' notitle, \
       'conf02_rounds_38.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#8c564b' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#8c564b' notitle, \
       'conf02_rounds_39.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e377c2' notitle, \
       'conf02_rounds_40.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#7f7f7f' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#7f7f7f' notitle, \
       'conf02_rounds_41.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#bcbd22' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#bcbd22' notitle, \
       'conf02_rounds_42.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' notitle, \
       'conf02_rounds_43.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#393b79' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#393b79' notitle
  set ylabel 'KL(running contributions || data shares)'
  set key top right
  plot 'conf02_rounds_33.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'conf02_rounds_34.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'conf02_rounds_35.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#ff7f0e' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#ff7f0e' title 'fedprox (n=3)', \
       'conf02_rounds_36.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#2ca02c' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#2ca02c' title 'ditto (n=3)', \
       'conf02_rounds_37.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#9467bd' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#9467bd' title 'moon (n=3)', \
       'conf02_rounds_38.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#8c564b' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#8c564b' title 'fedfv (n=3)', \
       'conf02_rounds_39.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#e377c2' title 'cgsv (n=3)', \
       'conf02_rounds_40.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#7f7f7f' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#7f7f7f' title 'qfedavg (n=3)', \
       'conf02_rounds_41.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#bcbd22' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#bcbd22' title 'fedfa (n=3)', \
       'conf02_rounds_42.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'conf02_rounds_43.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#393b79' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#393b79' title 'gtg (n=3)'
  unset multiplot
}
