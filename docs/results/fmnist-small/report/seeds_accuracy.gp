# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }
  set output 'seeds_accuracy.'.fmt
  set xlabel 'round'
  set ylabel 'test accuracy of the global model'
  set key outside right
  set grid
  set style fill transparent solid 0.15 noborder
  plot 'seeds_accuracy_00.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_accuracy_01.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_accuracy_02.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_accuracy_03.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_accuracy_04.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_accuracy_05.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_accuracy_06.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_accuracy_07.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_accuracy_08.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_accuracy_09.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_accuracy_10.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_accuracy_11.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_accuracy_12.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_accuracy_13.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -CL (n=3)', \
       'seeds_accuracy_14.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -CMC (n=3)', \
       'seeds_accuracy_15.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -M (n=3)', \
       'seeds_accuracy_16.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -Q (n=3)', \
       'seeds_accuracy_17.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -V (n=3)', \
       'seeds_accuracy_18.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=5)', \
       'seeds_accuracy_19.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=5)', \
       'seeds_accuracy_20.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#ff7f0e' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#ff7f0e' title 'fedprox (n=3)', \
       'seeds_accuracy_21.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#2ca02c' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#2ca02c' title 'ditto (n=3)', \
       'seeds_accuracy_22.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#9467bd' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#9467bd' title 'moon (n=3)', \
       'seeds_accuracy_23.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#8c564b' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#8c564b' title 'fedfv (n=3)', \
       'seeds_accuracy_24.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e377c2' title 'cgsv (n=3)', \
       'seeds_accuracy_25.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#7f7f7f' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#7f7f7f' title 'qfedavg (n=3)', \
       'seeds_accuracy_26.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#bcbd22' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#bcbd22' title 'fedfa (n=3)', \
       'seeds_accuracy_27.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=5)', \
       'seeds_accuracy_28.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#393b79' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#393b79' title 'gtg (n=3)', \
       'seeds_accuracy_29.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_accuracy_30.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_accuracy_31.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_accuracy_32.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_accuracy_33.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_accuracy_34.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e377c2' title 'cgsv (n=3)', \
       'seeds_accuracy_35.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_accuracy_36.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_accuracy_37.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_accuracy_38.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e377c2' title 'cgsv (n=3)', \
       'seeds_accuracy_39.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_accuracy_40.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -CL (n=3)', \
       'seeds_accuracy_41.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -CMC (n=3)', \
       'seeds_accuracy_42.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -M (n=3)', \
       'seeds_accuracy_43.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -Q (n=3)', \
       'seeds_accuracy_44.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -V (n=3)', \
       'seeds_accuracy_45.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_accuracy_46.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_accuracy_47.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e377c2' title 'cgsv (n=3)', \
       'seeds_accuracy_48.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_accuracy_49.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=5)', \
       'seeds_accuracy_50.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=5)', \
       'seeds_accuracy_51.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#ff7f0e' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#ff7f0e' title 'fedprox (n=3)', \
       'seeds_accuracy_52.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#2ca02c' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#2ca02c' title 'ditto (n=3)', \
       'seeds_accuracy_53.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#9467bd' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#9467bd' title 'moon (n=3)', \
       'seeds_accuracy_54.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#8c564b' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#8c564b' title 'fedfv (n=3)', \
       'seeds_accuracy_55.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e377c2' title 'cgsv (n=3)', \
       'seeds_accuracy_56.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#7f7f7f' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#7f7f7f' title 'qfedavg (n=3)', \
       'seeds_accuracy_57.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#bcbd22' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#bcbd22' title 'fedfa (n=3)', \
       'seeds_accuracy_58.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=5)', \
       'seeds_accuracy_59.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#393b79' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#393b79' title 'gtg (n=3)'
}
