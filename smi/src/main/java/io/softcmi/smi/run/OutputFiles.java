package io.softcmi.smi.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The per-rank output files of {@code -stdout FILE} / {@code -stderr FILE} (manual §2.1.2): rank
 * {@code x} writes {@code FILE_x}; files already there are renamed to {@code NAME~} first; after
 * the job, empty files are removed, and if only one process wrote anything, its file is renamed
 * to {@code FILE}.
 */
public final class OutputFiles {
    private final Path base;
    private final int np;

    /**
     * @param base {@code FILE}
     * @param np the number of processes
     */
    public OutputFiles(Path base, int np) {
        this.base = base;
        this.np = np;
    }

    /**
     * @param rank a process
     * @return its file {@code FILE_rank}
     */
    public Path file(int rank) {
        return base.resolveSibling(base.getFileName() + "_" + rank);
    }

    /**
     * Renames existing output files to {@code NAME~}.
     *
     * @throws IOException if one cannot be renamed
     */
    public void prepare() throws IOException {
        backup(base);
        for (int r = 0; r < np; r++) {
            backup(file(r));
        }
    }

    private static void backup(Path p) throws IOException {
        if (Files.exists(p)) {
            Files.move(p, p.resolveSibling(p.getFileName() + "~"), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /**
     * Removes the empty files and renames a single non-empty one to {@code FILE}.
     *
     * @return the files left
     * @throws IOException if the files cannot be handled
     */
    public List<Path> finish() throws IOException {
        List<Path> left = new ArrayList<>();
        for (int r = 0; r < np; r++) {
            Path f = file(r);
            if (!Files.exists(f)) {
                continue;
            }
            if (Files.size(f) == 0) {
                Files.delete(f);
            } else {
                left.add(f);
            }
        }
        if (left.size() == 1) {
            Files.move(left.get(0), base, StandardCopyOption.REPLACE_EXISTING);
            return List.of(base);
        }
        return left;
    }
}
