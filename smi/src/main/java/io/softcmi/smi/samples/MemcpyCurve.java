package io.softcmi.smi.samples;

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
import javax.imageio.ImageIO;

/**
 * Draws {@link MemcpyBench}'s curve as a PNG: MiB/s against block size, both on logarithmic
 * axes, one line per kind of copy, and the raw TCP stream of the same run as a dashed line.
 */
final class MemcpyCurve {
    private static final int WIDTH = 900;
    private static final int HEIGHT = 560;
    private static final int LEFT = 80;
    private static final int RIGHT = 200;
    private static final int TOP = 50;
    private static final int BOTTOM = 60;
    private static final String[] NAMES = {"local sync", "local async", "remote sync", "remote async"};
    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0x2ca02c), new Color(0xd62728), new Color(0xff7f0e)};

    /** One block size and the four rates measured for it (MiB/s, in the order of {@link #NAMES}). */
    record Row(long bytes, double[] rates) {
    }

    private MemcpyCurve() {
    }

    static void write(Path png, String title, List<Row> rows, double rawStream) throws IOException {
        BufferedImage img = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, WIDTH, HEIGHT);
        double xMin = log2(rows.get(0).bytes());
        double xMax = Math.max(xMin + 1, log2(rows.get(rows.size() - 1).bytes()));
        double yMax = Math.ceil(Math.log10(Math.max(rawStream, rows.stream().flatMapToDouble(r -> java.util.Arrays.stream(r.rates()))
            .max().orElse(1))));
        double yMin = yMax - 6; // six decades: 0.01 MiB/s and up when the top is 10^4
        Axes axes = new Axes(xMin, xMax, yMin, yMax);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        g.drawString(title, LEFT, TOP - 20);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        for (double d = yMin; d <= yMax; d++) {
            int y = axes.y(Math.pow(10, d));
            g.setColor(new Color(0xdddddd));
            g.drawLine(LEFT, y, WIDTH - RIGHT, y);
            g.setColor(Color.BLACK);
            g.drawString(d >= 0 ? String.valueOf((long) Math.pow(10, d)) : String.format(Locale.ROOT, "%.0e", Math.pow(10, d)),
                8, y + 4);
        }
        for (Row r : rows) {
            int x = axes.x(r.bytes());
            if (Long.numberOfTrailingZeros(r.bytes()) % 4 == 3 || r == rows.get(rows.size() - 1)) {
                g.drawString(size(r.bytes()), x - 12, HEIGHT - BOTTOM + 18);
            }
        }
        g.drawRect(LEFT, TOP, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
        g.drawString("block size", (WIDTH - RIGHT) / 2, HEIGHT - 15);
        g.drawString("MiB/s", 8, TOP - 6);
        g.setStroke(new BasicStroke(2f));
        for (int s = 0; s < NAMES.length; s++) {
            g.setColor(COLORS[s]);
            int px = -1;
            int py = -1;
            for (Row r : rows) {
                int x = axes.x(r.bytes());
                int y = axes.y(r.rates()[s]);
                if (px >= 0) {
                    g.drawLine(px, py, x, y);
                }
                px = x;
                py = y;
            }
            legend(g, s, NAMES[s]);
        }
        g.setColor(Color.GRAY);
        g.setStroke(new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {8f, 6f}, 0f));
        int ry = axes.y(rawStream);
        g.drawLine(LEFT, ry, WIDTH - RIGHT, ry);
        legend(g, NAMES.length, String.format(Locale.ROOT, "raw TCP stream %.0f", rawStream));
        g.dispose();
        ImageIO.write(img, "png", png.toFile());
    }

    private static void legend(Graphics2D g, int i, String name) {
        int y = TOP + 20 + 22 * i;
        int x = WIDTH - RIGHT + 15;
        g.drawLine(x, y, x + 25, y);
        g.setColor(Color.BLACK);
        g.drawString(name, x + 32, y + 4);
    }

    private static String size(long b) {
        return b >= 1 << 20 ? (b >> 20) + "M" : b >= 1 << 10 ? (b >> 10) + "K" : b + "B";
    }

    private static double log2(double v) {
        return Math.log(v) / Math.log(2);
    }

    /** Maps block sizes (log 2) and rates (log 10) to pixels. */
    private record Axes(double xMin, double xMax, double yMin, double yMax) {
        int x(long bytes) {
            return LEFT + (int) Math.round((log2(bytes) - xMin) / (xMax - xMin) * (WIDTH - LEFT - RIGHT));
        }

        int y(double rate) {
            double d = Math.log10(Math.max(rate, Math.pow(10, yMin)));
            return HEIGHT - BOTTOM - (int) Math.round((d - yMin) / (yMax - yMin) * (HEIGHT - TOP - BOTTOM));
        }
    }
}
