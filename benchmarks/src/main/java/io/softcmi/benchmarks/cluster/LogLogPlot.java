package io.softcmi.benchmarks.cluster;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.LongFunction;

/**
 * Draws the benchmark programs' curves as a PNG with the JDK alone: side-by-side panels, each
 * with named series of points on a log<sub>2</sub> x axis (contexts, message sizes) and a
 * log<sub>10</sub> y axis (throughput, latency, bandwidth). Raw baselines are drawn dashed.
 * Used by {@link FanInBenchmark} ({@code --png}) and {@link VmmcBenchmark} ({@code -Dbench.png}).
 */
final class LogLogPlot {
    private static final int PANEL_W = 600;
    private static final int H = 520;
    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
        new Color(0x9467bd), new Color(0x8c564b)};

    /**
     * One curve.
     *
     * @param name its legend
     * @param dashed whether it is a raw baseline (drawn dashed)
     * @param points its points, {@code {x, y}} with x &gt; 0, in drawing order
     */
    record Series(String name, boolean dashed, List<double[]> points) {
    }

    /**
     * One panel.
     *
     * @param title above the panel (says the y unit)
     * @param xLabel below the x axis
     * @param xTick the label of a power-of-two x tick
     * @param tickEvery label every this many powers of two
     * @param series its curves
     */
    record Panel(String title, String xLabel, LongFunction<String> xTick, int tickEvery, List<Series> series) {
    }

    private LogLogPlot() {
    }

    /**
     * Writes the panels, left to right, to a PNG file.
     *
     * @param panels the panels
     * @param png where to write
     * @throws IOException if the file cannot be written
     */
    static void draw(List<Panel> panels, Path png) throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage img = new BufferedImage(PANEL_W * panels.size(), H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, img.getWidth(), H);
        for (int i = 0; i < panels.size(); i++) {
            panel(g, i * PANEL_W, panels.get(i));
        }
        g.dispose();
        javax.imageio.ImageIO.write(img, "png", png.toFile());
    }

    /** {@code 4 B}, {@code 64 KiB}, {@code 4 MiB}: a byte count for an x tick. */
    static String bytes(long n) {
        if (n >= 1 << 20 && n % (1 << 20) == 0) {
            return n / (1 << 20) + " MiB";
        }
        if (n >= 1 << 10 && n % (1 << 10) == 0) {
            return n / (1 << 10) + " KiB";
        }
        return n + " B";
    }

    private static void panel(Graphics2D g, int x0, Panel panel) {
        int left = x0 + 70;
        int right = x0 + PANEL_W - 20;
        int top = 40;
        int bottom = H - 140;
        double minY = Double.MAX_VALUE;
        double maxY = 0;
        double minX = Double.MAX_VALUE;
        double maxX = 1;
        for (Series s : panel.series()) {
            for (double[] p : s.points()) {
                minY = Math.min(minY, p[1]);
                maxY = Math.max(maxY, p[1]);
                minX = Math.min(minX, p[0]);
                maxX = Math.max(maxX, p[0]);
            }
        }
        double ly0 = Math.floor(Math.log10(Math.max(minY, 1e-3)));
        double ly1 = Math.ceil(Math.log10(Math.max(maxY, 1e-3)));
        if (ly1 <= ly0) {
            ly1 = ly0 + 1;
        }
        double lx0 = Math.floor(log2(Math.min(minX, maxX)));
        double lx1 = Math.max(lx0 + 1, Math.ceil(log2(maxX)));
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.drawString(panel.title(), left, 25);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        g.drawRect(left, top, right - left, bottom - top);
        for (double d = ly0; d <= ly1; d++) {
            int y = (int) (bottom - (d - ly0) / (ly1 - ly0) * (bottom - top));
            g.setColor(Color.LIGHT_GRAY);
            g.drawLine(left, y, right, y);
            g.setColor(Color.BLACK);
            g.drawString(d >= 0 ? String.format(Locale.ROOT, "%.0f", Math.pow(10, d))
                : java.math.BigDecimal.ONE.scaleByPowerOfTen((int) d).toPlainString(), x0 + 5, y + 4);
        }
        for (int e = (int) lx0; e <= lx1; e++) {
            if ((e - (int) lx0) % Math.max(1, panel.tickEvery()) == 0) {
                int x = (int) (left + (e - lx0) / (lx1 - lx0) * (right - left));
                g.drawString(panel.xTick().apply(1L << e), x - 8, bottom + 15);
            }
        }
        g.drawString(panel.xLabel(), (left + right) / 2 - 90, bottom + 30);
        int i = 0;
        for (Series s : panel.series()) {
            g.setColor(COLORS[i % COLORS.length]);
            g.setStroke(new BasicStroke(2f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND, 1f,
                s.dashed() ? new float[] {6f, 4f} : null, 0f));
            int px = -1;
            int py = -1;
            for (double[] p : s.points()) {
                int x = (int) (left + (log2(p[0]) - lx0) / (lx1 - lx0) * (right - left));
                double v = Math.log10(Math.max(p[1], 1e-3));
                int y = (int) (bottom - (v - ly0) / (ly1 - ly0) * (bottom - top));
                g.fillOval(x - 3, y - 3, 6, 6);
                if (px >= 0) {
                    g.drawLine(px, py, x, y);
                }
                px = x;
                py = y;
            }
            g.setStroke(new BasicStroke(1f));
            g.drawString(s.name(), left + 10, bottom + 50 + 16 * i);
            i++;
        }
    }

    private static double log2(double v) {
        return Math.log(v) / Math.log(2);
    }
}
