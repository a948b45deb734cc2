# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 860,380 font ',11' } else { set terminal svg size 860,380 }
  set output 'horizon01.'.fmt
  set datafile separator ','
  set xlabel 'round'
  set ylabel 'KL(contributions || data shares)'
  set logscale y
  set xrange [1:204.1]
  set grid
  set key top right font ',9'
  plot 'horizon01_rounds.csv' skip 1 using 1:3:4 with filledcurves fs transparent solid 0.15 noborder lc rgb '#d62728' notitle, \
       'horizon01_rounds.csv' skip 1 using 1:2 with lines lw 2 lc rgb '#d62728' title 'FLCE (correct samples), running', \
       'horizon01_rounds.csv' skip 1 using 1:6:7 with filledcurves fs transparent solid 0.15 noborder lc rgb '#d62728' notitle, \
       'horizon01_rounds.csv' skip 1 using 1:5 with lines lw 2 lc rgb '#d62728' dt 2 title 'FLCE (all samples), running', \
       'horizon01_rounds.csv' skip 1 using 1:9:10 with filledcurves fs transparent solid 0.15 noborder lc rgb '#1f77b4' notitle, \
       'horizon01_rounds.csv' skip 1 using 1:8 with lines lw 2 lc rgb '#1f77b4' title 'fedavg', \
       'horizon01_rounds.csv' skip 1 using 1:12:13 with filledcurves fs transparent solid 0.15 noborder lc rgb '#8c564b' notitle, \
       'horizon01_rounds.csv' skip 1 using 1:11 with lines lw 2 lc rgb '#8c564b' title 'fedfv', \
       'horizon01.csv' skip 1 using 1:2:3:4 with yerrorbars pt 7 ps 1.2 lw 2 lc rgb '#d62728' title 'FLCE (correct samples), with completion, at the rounds judged', \
       'horizon01.csv' skip 1 using 1:5:6:7 with yerrorbars pt 6 ps 1.2 lw 2 lc rgb '#d62728' title 'FLCE (all samples), with completion, at the rounds judged'
}
