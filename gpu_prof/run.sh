cd gpu_prof
gcc -O2 -I.. prof.c -L. -lctorch -Wl,-rpath,$PWD -o prof && ./prof && ./prof
gcc -O2 -I.. sampler.c -L. -lctorch -Wl,-rpath,$PWD -ldl -o sampler && ./sampler
