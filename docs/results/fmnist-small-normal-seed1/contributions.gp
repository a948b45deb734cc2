# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }
  set output 'contributions.'.fmt
  set xlabel 'client'
  set ylabel 'share of the whole training'
  set key outside right
  set style data histograms
  set style histogram clustered gap 1
  set style fill solid 0.85
  set xtics 0,5
  plot 'contributions.csv' skip 1 using 2:xtic(1) title 'data share' lc rgb '#bbbbbb', '' skip 1 using 3 title 'flce' lc rgb '#d62728', '' skip 1 using 4 title 'fedavg' lc rgb '#1f77b4', '' skip 1 using 5 title 'fedprox' lc rgb '#ff7f0e', '' skip 1 using 6 title 'ditto' lc rgb '#2ca02c', '' skip 1 using 7 title 'moon' lc rgb '#9467bd', '' skip 1 using 8 title 'fedfv' lc rgb '#8c564b', '' skip 1 using 9 title 'cgsv' lc rgb '#e377c2', '' skip 1 using 10 title 'qfedavg' lc rgb '#7f7f7f', '' skip 1 using 11 title 'fedfa' lc rgb '#bcbd22', '' skip 1 using 12 title 'fedsv' lc rgb '#17becf', '' skip 1 using 13 title 'gtg' lc rgb '#393b79', '' skip 1 using 14 title 'flce (fmnist-noniid-s1/flce)' lc rgb '#d62728', '' skip 1 using 15 title 'fedavg (fmnist-noniid-s1/fedavg)' lc rgb '#1f77b4', '' skip 1 using 16 title 'fedprox (fmnist-noniid-s1/fedprox)' lc rgb '#ff7f0e', '' skip 1 using 17 title 'ditto (fmnist-noniid-s1/ditto)' lc rgb '#2ca02c', '' skip 1 using 18 title 'moon (fmnist-noniid-s1/moon)' lc rgb '#9467bd', '' skip 1 using 19 title 'fedfv (fmnist-noniid-s1/fedfv)' lc rgb '#8c564b', '' skip 1 using 20 title 'cgsv (fmnist-noniid-s1/cgsv)' lc rgb '#e377c2', '' skip 1 using 21 title 'qfedavg (fmnist-noniid-s1/qfedavg)' lc rgb '#7f7f7f', '' skip 1 using 22 title 'fedfa (fmnist-noniid-s1/fedfa)' lc rgb '#bcbd22', '' skip 1 using 23 title 'fedsv (fmnist-noniid-s1/fedsv)' lc rgb '#17becf', '' skip 1 using 24 title 'gtg (fmnist-noniid-s1/gtg)' lc rgb '#393b79'
}
