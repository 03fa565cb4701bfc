# kprof-timeout: 300
# kprof-qemu: -smp 8
# girq_inkernel on 8 vCPUs (#25, S3): every CPU's timer and IPIs (arm64
# has seven) start their histograms at once, while another tracer's
# enabling patches text on every CPU. Before the start reserved spares for
# them (4 an online CPU) and the fill work became unbound, 226 to 13,517
# samples a run waited in full stages and were counted lost.
# kprof-kernels: arm64-7.3
. /tests/girq_inkernel.sh
