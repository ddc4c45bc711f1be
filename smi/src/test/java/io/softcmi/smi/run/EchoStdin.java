package io.softcmi.smi.run;

import io.softcmi.smi.Smi;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** A test program: every rank prints the first line of its standard input. */
public final class EchoStdin {
    private EchoStdin() {
    }

    /**
     * @param args none
     */
    public static void main(String[] args) {
        Smi smi = Smi.init(args);
        try {
            String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            System.out.println("rank " + smi.procRank() + " read: " + line);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        smi.close();
    }
}
