# made by flce report
set datafile separator ','
do for [fmt in 'png svg'] {
  if (fmt eq 'png') { set terminal pngcairo size 860,480 font ',11' } else { set terminal svg size 860,480 }
  set output 'kl.'.fmt
  set xlabel 'round'
  set ylabel 'KL(running contributions || data shares)'
  set key outside right
  set grid
  plot 'run00_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' title 'flce (37 runs)', \
       'run01_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run02_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run03_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run04_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' title 'fedavg (34 runs)', \
       'run05_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' title 'fedsv (34 runs)', \
       'run06_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run07_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run08_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run09_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run10_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run11_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run12_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run13_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run14_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run15_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run16_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run17_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run18_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run19_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run20_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run21_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run22_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run23_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run24_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run25_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run26_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run27_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run28_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run29_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run30_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run31_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run32_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run33_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run34_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run35_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run36_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run37_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run38_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run39_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 title 'flce -CL (6 runs)', \
       'run40_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run41_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run42_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 title 'flce -CMC (6 runs)', \
       'run43_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run44_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run45_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 title 'flce -M (6 runs)', \
       'run46_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run47_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run48_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 title 'flce -Q (6 runs)', \
       'run49_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run50_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run51_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 title 'flce -V (6 runs)', \
       'run52_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run53_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run54_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run55_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run56_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#ff7f0e' title 'fedprox (6 runs)', \
       'run57_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#2ca02c' title 'ditto (6 runs)', \
       'run58_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#9467bd' title 'moon (6 runs)', \
       'run59_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#8c564b' title 'fedfv (6 runs)', \
       'run60_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#e377c2' title 'cgsv (15 runs)', \
       'run61_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#7f7f7f' title 'qfedavg (6 runs)', \
       'run62_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#bcbd22' title 'fedfa (6 runs)', \
       'run63_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run64_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#393b79' title 'gtg (6 runs)', \
       'run65_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run66_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run67_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#ff7f0e' notitle, \
       'run68_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#2ca02c' notitle, \
       'run69_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#9467bd' notitle, \
       'run70_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#8c564b' notitle, \
       'run71_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#e377c2' notitle, \
       'run72_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#7f7f7f' notitle, \
       'run73_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#bcbd22' notitle, \
       'run74_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run75_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#393b79' notitle, \
       'run76_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run77_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run78_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#ff7f0e' notitle, \
       'run79_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#2ca02c' notitle, \
       'run80_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#9467bd' notitle, \
       'run81_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#8c564b' notitle, \
       'run82_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#e377c2' notitle, \
       'run83_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#7f7f7f' notitle, \
       'run84_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#bcbd22' notitle, \
       'run85_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run86_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#393b79' notitle, \
       'run87_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run88_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run89_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run90_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run91_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run92_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run93_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run94_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run95_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run96_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run97_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run98_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run99_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run100_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run101_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run102_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run103_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run104_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#e377c2' notitle, \
       'run105_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run106_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run107_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run108_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#e377c2' notitle, \
       'run109_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run110_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run111_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run112_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#e377c2' notitle, \
       'run113_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run114_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run115_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run116_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#e377c2' notitle, \
       'run117_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run118_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run119_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run120_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#e377c2' notitle, \
       'run121_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run122_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run123_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run124_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#e377c2' notitle, \
       'run125_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run126_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run127_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run128_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run129_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run130_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run131_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run132_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run133_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run134_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run135_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run136_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run137_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run138_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run139_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run140_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' dt 2 notitle, \
       'run141_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run142_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run143_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#e377c2' notitle, \
       'run144_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run145_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run146_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run147_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#e377c2' notitle, \
       'run148_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run149_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run150_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run151_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#e377c2' notitle, \
       'run152_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run153_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run154_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run155_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#ff7f0e' notitle, \
       'run156_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#2ca02c' notitle, \
       'run157_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#9467bd' notitle, \
       'run158_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#8c564b' notitle, \
       'run159_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#e377c2' notitle, \
       'run160_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#7f7f7f' notitle, \
       'run161_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#bcbd22' notitle, \
       'run162_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run163_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#393b79' notitle, \
       'run164_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run165_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run166_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#ff7f0e' notitle, \
       'run167_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#2ca02c' notitle, \
       'run168_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#9467bd' notitle, \
       'run169_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#8c564b' notitle, \
       'run170_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#e377c2' notitle, \
       'run171_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#7f7f7f' notitle, \
       'run172_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#bcbd22' notitle, \
       'run173_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run174_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#393b79' notitle, \
       'run175_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run176_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run177_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#ff7f0e' notitle, \
       'run178_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#2ca02c' notitle, \
       'run179_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#9467bd' notitle, \
       'run180_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#8c564b' notitle, \
       'run181_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#e377c2' notitle, \
       'run182_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#7f7f7f' notitle, \
       'run183_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#bcbd22' notitle, \
       'run184_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run185_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#393b79' notitle, \
       'run186_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run187_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run188_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle, \
       'run189_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#d62728' notitle, \
       'run190_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#1f77b4' notitle, \
       'run191_metrics.csv' skip 1 using 1:4 with lines lw 1 lc rgb '#17becf' notitle
}
