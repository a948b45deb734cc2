# made by flce report
do for [fmt in 'png svg'] {
  reset
  set datafile separator ','
  if (fmt eq 'png') { set terminal pngcairo size 980,382 font ',11' } else { set terminal svg size 980,382 }
  set output 'conf02_rounds.'.fmt
  set multiplot layout 1,2
  set xlabel 'round'
  set xtics 1
  set grid
  set style fill transparent solid 0.15 noborder
  set key below horizontal maxcols 3 font ',10' spacing 0.9
  set ylabel 'test accuracy'
  plot 'conf02_rounds_22.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e15759' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e15759' title 'flce (n=10)', \
       'conf02_rounds_23.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#4e79a7' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#4e79a7' title 'fedavg (n=10)', \
       'conf02_rounds_24.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#f28e2b' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#f28e2b' title 'fedprox (n=10)', \
       'conf02_rounds_25.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#59a14f' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#59a14f' title 'ditto (n=10)', \
       'conf02_rounds_26.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#b07aa1' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#b07aa1' title 'moon (n=10)', \
       'conf02_rounds_27.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#9c755f' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#9c755f' title 'fedfv (n=10)', \
       'conf02_rounds_28.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#ff9da7' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#ff9da7' title 'cgsv (n=10)', \
       'conf02_rounds_29.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#bab0ac' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#bab0ac' title 'qfedavg (n=10)', \
       'conf02_rounds_30.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#edc948' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#edc948' title 'fedfa (n=10)', \
       'conf02_rounds_31.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#76b7b2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#76b7b2' title 'fedsv (n=10)', \
       'conf02_rounds_32.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#000000' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#000000' title 'gtg (n=10)'
  set ylabel 'KL(running contributions || data shares)'
  plot 'conf02_rounds_22.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#e15759' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#e15759' title 'flce (n=10)', \
       'conf02_rounds_23.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#4e79a7' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#4e79a7' title 'fedavg (n=10)', \
       'conf02_rounds_24.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#f28e2b' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#f28e2b' title 'fedprox (n=10)', \
       'conf02_rounds_25.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#59a14f' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#59a14f' title 'ditto (n=10)', \
       'conf02_rounds_26.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#b07aa1' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#b07aa1' title 'moon (n=10)', \
       'conf02_rounds_27.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#9c755f' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#9c755f' title 'fedfv (n=10)', \
       'conf02_rounds_28.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#ff9da7' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#ff9da7' title 'cgsv (n=10)', \
       'conf02_rounds_29.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#bab0ac' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#bab0ac' title 'qfedavg (n=10)', \
       'conf02_rounds_30.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#edc948' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#edc948' title 'fedfa (n=10)', \
       'conf02_rounds_31.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#76b7b2' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#76b7b2' title 'fedsv (n=10)', \
       'conf02_rounds_32.csv' skip 1 using 1:6:7 with filledcurves lc rgb '#000000' notitle, '' skip 1 using 1:5 with lines lw 2 lc rgb '#000000' title 'gtg (n=10)'
  unset multiplot
}
