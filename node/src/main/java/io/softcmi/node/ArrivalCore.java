package io.softcmi.node;

/**
 * Where one data connection's packets arrive, as the I/O loop that steers it asks
 * ({@link LoopCpus}): the socket's descriptor, and how many service passes remain before the
 * loop asks again ({@code SO_INCOMING_CPU} is one system call; once every
 * {@link DataIoLoop#STEER_EVERY} passes it costs nothing measurable). Loop thread only.
 */
final class ArrivalCore {
    private final int fd;
    private int served;

    /** @param fd the socket's descriptor ({@link SocketCpu#fdOf}), -1 when unknown */
    ArrivalCore(int fd) {
        this.fd = fd;
    }

    /**
     * Counts a service pass.
     *
     * @param every how often to answer
     * @return the core the packets arrive on, once every {@code every} passes; -1 otherwise or when unknown
     */
    int coreEvery(int every) {
        if (++served < every) {
            return -1;
        }
        served = 0;
        return SocketCpu.incomingCpu(fd);
    }
}
