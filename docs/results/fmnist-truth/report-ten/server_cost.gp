# made by flce report
do for [fmt in 'png svg'] {
  reset
  set datafile separator ','
  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }
  set output 'server_cost.'.fmt
  set xlabel 'method'
  set ylabel 'server seconds per round (log scale)'
  set logscale y
  set style fill solid 0.85
  set boxwidth 0.6
  set xtics rotate by -30
  set grid ytics
  plot 'server_cost_methods.csv' skip 1 using 0:2:(0.6):xtic(1) with boxes lc rgb '#1f77b4' notitle
}
