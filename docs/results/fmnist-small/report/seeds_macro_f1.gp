# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }
  set output 'seeds_macro_f1.'.fmt
  set xlabel 'round'
  set ylabel 'macro-F1'
  set key outside right
  set grid
  set style fill transparent solid 0.15 noborder
  plot 'seeds_macro_f1_00.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_macro_f1_01.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_macro_f1_02.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_macro_f1_03.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_macro_f1_04.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_macro_f1_05.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_macro_f1_06.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_macro_f1_07.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_macro_f1_08.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_macro_f1_09.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_macro_f1_10.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_macro_f1_11.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_macro_f1_12.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_macro_f1_13.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -CL (n=3)', \
       'seeds_macro_f1_14.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -CMC (n=3)', \
       'seeds_macro_f1_15.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -M (n=3)', \
       'seeds_macro_f1_16.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -Q (n=3)', \
       'seeds_macro_f1_17.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -V (n=3)', \
       'seeds_macro_f1_18.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=5)', \
       'seeds_macro_f1_19.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=5)', \
       'seeds_macro_f1_20.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#ff7f0e' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#ff7f0e' title 'fedprox (n=3)', \
       'seeds_macro_f1_21.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#2ca02c' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#2ca02c' title 'ditto (n=3)', \
       'seeds_macro_f1_22.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#9467bd' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#9467bd' title 'moon (n=3)', \
       'seeds_macro_f1_23.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#8c564b' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#8c564b' title 'fedfv (n=3)', \
       'seeds_macro_f1_24.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e377c2' title 'cgsv (n=3)', \
       'seeds_macro_f1_25.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#7f7f7f' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#7f7f7f' title 'qfedavg (n=3)', \
       'seeds_macro_f1_26.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#bcbd22' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#bcbd22' title 'fedfa (n=3)', \
       'seeds_macro_f1_27.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=5)', \
       'seeds_macro_f1_28.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#393b79' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#393b79' title 'gtg (n=3)', \
       'seeds_macro_f1_29.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_macro_f1_30.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_macro_f1_31.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_macro_f1_32.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_macro_f1_33.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_macro_f1_34.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e377c2' title 'cgsv (n=3)', \
       'seeds_macro_f1_35.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_macro_f1_36.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_macro_f1_37.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_macro_f1_38.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e377c2' title 'cgsv (n=3)', \
       'seeds_macro_f1_39.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_macro_f1_40.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -CL (n=3)', \
       'seeds_macro_f1_41.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -CMC (n=3)', \
       'seeds_macro_f1_42.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -M (n=3)', \
       'seeds_macro_f1_43.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -Q (n=3)', \
       'seeds_macro_f1_44.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -V (n=3)', \
       'seeds_macro_f1_45.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_macro_f1_46.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_macro_f1_47.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e377c2' title 'cgsv (n=3)', \
       'seeds_macro_f1_48.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_macro_f1_49.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=5)', \
       'seeds_macro_f1_50.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=5)', \
       'seeds_macro_f1_51.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#ff7f0e' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#ff7f0e' title 'fedprox (n=3)', \
       'seeds_macro_f1_52.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#2ca02c' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#2ca02c' title 'ditto (n=3)', \
       'seeds_macro_f1_53.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#9467bd' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#9467bd' title 'moon (n=3)', \
       'seeds_macro_f1_54.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#8c564b' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#8c564b' title 'fedfv (n=3)', \
       'seeds_macro_f1_55.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e377c2' title 'cgsv (n=3)', \
       'seeds_macro_f1_56.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#7f7f7f' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#7f7f7f' title 'qfedavg (n=3)', \
       'seeds_macro_f1_57.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#bcbd22' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#bcbd22' title 'fedfa (n=3)', \
       'seeds_macro_f1_58.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=5)', \
       'seeds_macro_f1_59.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#393b79' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#393b79' title 'gtg (n=3)'
}
