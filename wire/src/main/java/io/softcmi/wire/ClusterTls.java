package io.softcmi.wire;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS for the connections between nodes and to homes, as an option for untrusted networks
 * ({@code cmid --tls-keystore FILE --tls-password-file FILE}; docs/operations.md "TLS").
 *
 * <p>A daemon holds a PKCS12 key store with its private key and certificate; the certificates in
 * the same store are what it trusts (the cluster's certificate, or the CA that signed every
 * node's). Processes have no key store: their daemon hands them its trusted certificates over the
 * control socket, so a process trusts exactly the homes its daemon would. Only TLS 1.3 is
 * enabled. Names are not checked against addresses: a peer is trusted for holding a certificate
 * of the cluster, and then still proves the cluster key (peers) or a ticket (processes) inside
 * the encrypted connection.
 */
public final class ClusterTls {
    private static final String[] PROTOCOLS = {"TLSv1.3"};
    /** AES-128-GCM first: the fastest of TLS 1.3's suites with the JDK's AES intrinsics. */
    private static final String[] SUITES = {"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"};
    private final SSLContext context;
    private final byte[] trust;

    private ClusterTls(SSLContext context, byte[] trust) {
        this.context = context;
        this.trust = trust;
    }

    /**
     * A daemon's TLS from its key store.
     *
     * @param keyStore a PKCS12 file holding a private key entry (and the certificates to trust)
     * @param password the store's and the key's password
     * @return the daemon's TLS
     * @throws IOException if the file cannot be read or holds no key, naming the reason
     */
    public static ClusterTls fromKeyStore(Path keyStore, char[] password) throws IOException {
        try (InputStream in = Files.newInputStream(keyStore)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try {
                ks.load(in, password);
            } catch (IOException e) {
                throw new IOException("cannot read TLS key store " + keyStore + ": " + e.getMessage(), e);
            }
            boolean hasKey = false;
            List<Certificate> certificates = new ArrayList<>();
            for (String alias : Collections.list(ks.aliases())) {
                hasKey |= ks.isKeyEntry(alias);
                Certificate c = ks.getCertificate(alias);
                if (c != null) {
                    certificates.add(c);
                }
            }
            if (!hasKey) {
                throw new IOException("TLS key store " + keyStore + " holds no private key");
            }
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, password);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            SSLContext ctx = SSLContext.getInstance("TLSv1.3");
            ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return new ClusterTls(ctx, encode(certificates));
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot use TLS key store " + keyStore + ": " + e.getMessage(), e);
        }
    }

    /**
     * A process's TLS: it trusts what its daemon trusts and holds no key.
     *
     * @param trust the daemon's {@link #trust()}
     * @return the process's TLS
     * @throws IOException if the certificates cannot be decoded
     */
    public static ClusterTls forClient(byte[] trust) throws IOException {
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            int i = 0;
            for (Certificate c : decode(trust)) {
                ks.setCertificateEntry("cluster-" + i++, c);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ks);
            SSLContext ctx = SSLContext.getInstance("TLSv1.3");
            ctx.init(null, tmf.getTrustManagers(), null);
            return new ClusterTls(ctx, trust.clone());
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot use the node's TLS certificates: " + e.getMessage(), e);
        }
    }

    /** @return the trusted certificates, encoded for a process ({@link #forClient}) */
    public byte[] trust() {
        return trust.clone();
    }

    /**
     * @param client true for the connecting side
     * @return a new engine for one connection, TLS 1.3 only
     */
    public SSLEngine newEngine(boolean client) {
        SSLEngine e = context.createSSLEngine();
        e.setUseClientMode(client);
        e.setEnabledProtocols(PROTOCOLS);
        e.setEnabledCipherSuites(SUITES);
        return e;
    }

    /** @return sockets for the blocking peer connections between daemons (TLS 1.3 only once created) */
    public SSLSocketFactory socketFactory() {
        return context.getSocketFactory();
    }

    /** @return the protocols every socket and engine is limited to */
    public static String[] protocols() {
        return PROTOCOLS.clone();
    }

    /** @return the cipher suites every engine offers, in order of preference (AES-128-GCM first) */
    public static String[] cipherSuites() {
        return SUITES.clone();
    }

    private static byte[] encode(List<Certificate> certificates) throws GeneralSecurityException {
        int size = 4;
        List<byte[]> ders = new ArrayList<>();
        for (Certificate c : certificates) {
            byte[] der = c.getEncoded();
            ders.add(der);
            size += 4 + der.length;
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putInt(ders.size());
        for (byte[] der : ders) {
            b.putInt(der.length).put(der);
        }
        return b.array();
    }

    private static List<Certificate> decode(byte[] trust) throws GeneralSecurityException {
        ByteBuffer b = ByteBuffer.wrap(trust);
        CertificateFactory f = CertificateFactory.getInstance("X.509");
        List<Certificate> out = new ArrayList<>();
        try {
            int n = b.getInt();
            if (n < 1 || n > 64) {
                throw new GeneralSecurityException("bad certificate count " + n);
            }
            for (int i = 0; i < n; i++) {
                byte[] der = new byte[b.getInt()];
                b.get(der);
                out.add(f.generateCertificate(new ByteArrayInputStream(der)));
            }
        } catch (RuntimeException e) {
            throw new GeneralSecurityException("truncated certificate list", e);
        }
        return out;
    }
}
