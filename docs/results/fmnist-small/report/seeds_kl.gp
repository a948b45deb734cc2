# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }
  set output 'seeds_kl.'.fmt
  set xlabel 'round'
  set ylabel 'KL(running contributions || data shares)'
  set key outside right
  set grid
  set style fill transparent solid 0.15 noborder
  plot 'seeds_kl_00.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_kl_01.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_kl_02.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_kl_03.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_kl_04.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_kl_05.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_kl_06.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_kl_07.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_kl_08.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_kl_09.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_kl_10.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_kl_11.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_kl_12.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_kl_13.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -CL (n=3)', \
       'seeds_kl_14.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -CMC (n=3)', \
       'seeds_kl_15.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -M (n=3)', \
       'seeds_kl_16.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -Q (n=3)', \
       'seeds_kl_17.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -V (n=3)', \
       'seeds_kl_18.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=5)', \
       'seeds_kl_19.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=5)', \
       'seeds_kl_20.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#ff7f0e' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#ff7f0e' title 'fedprox (n=3)', \
       'seeds_kl_21.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#2ca02c' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#2ca02c' title 'ditto (n=3)', \
       'seeds_kl_22.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#9467bd' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#9467bd' title 'moon (n=3)', \
       'seeds_kl_23.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#8c564b' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#8c564b' title 'fedfv (n=3)', \
       'seeds_kl_24.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e377c2' title 'cgsv (n=3)', \
       'seeds_kl_25.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#7f7f7f' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#7f7f7f' title 'qfedavg (n=3)', \
       'seeds_kl_26.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#bcbd22' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#bcbd22' title 'fedfa (n=3)', \
       'seeds_kl_27.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=5)', \
       'seeds_kl_28.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#393b79' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#393b79' title 'gtg (n=3)', \
       'seeds_kl_29.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_kl_30.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_kl_31.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_kl_32.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_kl_33.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_kl_34.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e377c2' title 'cgsv (n=3)', \
       'seeds_kl_35.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_kl_36.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_kl_37.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_kl_38.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e377c2' title 'cgsv (n=3)', \
       'seeds_kl_39.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_kl_40.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -CL (n=3)', \
       'seeds_kl_41.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -CMC (n=3)', \
       'seeds_kl_42.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -M (n=3)', \
       'seeds_kl_43.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -Q (n=3)', \
       'seeds_kl_44.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' dt 2 title 'flce -V (n=3)', \
       'seeds_kl_45.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=3)', \
       'seeds_kl_46.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=3)', \
       'seeds_kl_47.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e377c2' title 'cgsv (n=3)', \
       'seeds_kl_48.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=3)', \
       'seeds_kl_49.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#d62728' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'flce (n=5)', \
       'seeds_kl_50.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#1f77b4' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#1f77b4' title 'fedavg (n=5)', \
       'seeds_kl_51.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#ff7f0e' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#ff7f0e' title 'fedprox (n=3)', \
       'seeds_kl_52.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#2ca02c' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#2ca02c' title 'ditto (n=3)', \
       'seeds_kl_53.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#9467bd' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#9467bd' title 'moon (n=3)', \
       'seeds_kl_54.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#8c564b' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#8c564b' title 'fedfv (n=3)', \
       'seeds_kl_55.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#e377c2' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#e377c2' title 'cgsv (n=3)', \
       'seeds_kl_56.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#7f7f7f' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#7f7f7f' title 'qfedavg (n=3)', \
       'seeds_kl_57.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#bcbd22' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#bcbd22' title 'fedfa (n=3)', \
       'seeds_kl_58.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#17becf' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#17becf' title 'fedsv (n=5)', \
       'seeds_kl_59.csv' skip 1 using 1:3:4 with filledcurves lc rgb '#393b79' notitle, '' skip 1 using 1:2 with lines lw 2 lc rgb '#393b79' title 'gtg (n=3)'
}
