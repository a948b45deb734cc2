/* xc_probe.c: the library's 16-channel weight-gradient kernel (flce_wgrad512_xc, backends/cpu/
 * gemm512.c) timed alone over a batch of 64 samples of the c16 28x28 k16 layer, the way wgrad_tap
 * calls it (8 channel pairs a sample, sums added in sample order), one thread, four cases
 * interleaved in one process so that they see the same moment of the machine: x and dyT of one
 * sample again and again (hot), every sample's own (cold: a 64 MB write evicts the caches first),
 * and one of the two cold; and, hot, the library's tap tiles two samples at a time
 * (flce_wgrad512_idx2, the path before the kernel). Best of 40 each, GFLOP/s at the layer's nominal 2 N K C 9 H W. Not part
 * of the build: a measurement tool (docs/performance.md, 2026-11-29, fifteenth session).
 *   cmake --build build --target flce_cpu
 *   gcc -O2 -o /tmp/xc_probe tools/xc_probe.c build/libflce_cpu.a -lm -lpthread
 *   taskset -c 0 /tmp/xc_probe */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stddef.h>
void flce_wgrad512_xc(const float *xa, int HW, int H, int W, const float *dyT, float *C, int acc);
void flce_wgrad512_idx2(int mr, int n, const float *const *arow, const int *xoff, const int *boff, ptrdiff_t d,
                        const float *B0, const float *B1, float *C0, float *C1, int ldc, int first);
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(void){
  int H=28,W=28,HW=H*W,C=16,K=16,N=64;
  size_t xs=(size_t)C*HW, ps=(size_t)HW*K;
  float *x=aligned_alloc(64,N*xs*4), *dy=aligned_alloc(64,N*ps*4), *out=aligned_alloc(64,C*9*K*4);
  for(size_t i=0;i<N*xs;i++) x[i]=(float)(i%97)*0.01f;
  for(size_t i=0;i<N*ps;i++) dy[i]=(float)(i%89)*0.01f;
  char *junk=malloc(64<<20);
  if(!x||!dy||!out||!junk) return fprintf(stderr,"xc_probe: out of memory\n"), 1;
  /* the tap tiles' position lists (cpu_conv.c tap_lists) */
  static int xoff[9*784], boff[9*784], cnt[9];
  for(int tap=0;tap<9;tap++){int k=0,ky=tap/3,kx=tap%3;
    for(int oy=0;oy<H;oy++){int iy=oy+ky-1; if(iy<0||iy>=H) continue;
      for(int ox=0;ox<W;ox++){int ix=ox+kx-1; if(ix<0||ix>=W) continue; xoff[tap*HW+k]=iy*W+ix; boff[tap*HW+k]=(oy*W+ox)*K; k++;}}
    cnt[tap]=k;}
  double best[5]={1e9,1e9,1e9,1e9,1e9};
  for(int rep=0;rep<40;rep++) for(int mode=0;mode<5;mode++){
    if(mode==4){ /* the library's tap tiles, two samples a tile (wgrad_tap before the kernel), hot */
      double t0=now();
      for(int n=0;n<N;n+=2)
        for(int t=0;t<18;t++){int c0=t/9*8,tap=t%9; const float *arow[8];
          for(int i=0;i<8;i++) arow[i]=x+(size_t)(c0+i)*HW;
          flce_wgrad512_idx2(8,cnt[tap],arow,xoff+tap*HW,boff+tap*HW,(ptrdiff_t)xs,dy,dy+ps,out+(size_t)(c0*9+tap)*K,NULL,9*K,n==0);}
      double t=now()-t0; if(t<best[4])best[4]=t;
      continue;
    }
    if(mode>=1) memset(junk,rep,64<<20);
    double t0=now();
    for(int n=0;n<N;n++){
      int nx = (mode==0||mode==2) ? 0 : n, nd = (mode==0||mode==3) ? 0 : n;
      for(int c=0;c<C;c+=2) flce_wgrad512_xc(x+nx*xs+c*HW,HW,H,W,dy+nd*ps,out+c*9*K,n>0);
    }
    double t=now()-t0; if(t<best[mode])best[mode]=t;
  }
  double fl=2.0*N*C*K*9*HW;
  const char *nm[5]={"hot (one sample)","cold x and dy","x hot, dy cold","dy hot, x cold","tap tiles, hot"};
  for(int m=0;m<5;m++) printf("%-18s %.3f ms %.1f GFLOP/s\n",nm[m],best[m]*1e3,fl/best[m]*1e-9);
  return 0;
}
