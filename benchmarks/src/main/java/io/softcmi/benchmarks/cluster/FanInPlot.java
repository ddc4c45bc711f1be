package io.softcmi.benchmarks.cluster;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** Draws {@link FanInBenchmark}'s curves (throughput and p99 against contexts, log-log) as a PNG, with the JDK alone. */
final class FanInPlot {
    private static final int W = 1200;
    private static final int H = 520;
    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
        new Color(0x9467bd), new Color(0x8c564b)};

    private FanInPlot() {
    }

    static void draw(List<FanInBenchmark.Point> points, Path png) throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, W, H);
        Map<String, List<FanInBenchmark.Point>> series = new LinkedHashMap<>();
        for (FanInBenchmark.Point p : points) {
            series.computeIfAbsent(p.system() + ", " + p.procs() + (p.procs() == 1 ? " process" : " processes"),
                k -> new java.util.ArrayList<>()).add(p);
        }
        panel(g, 0, "aggregate throughput (ops/s)", series, FanInBenchmark.Point::opsPerSec);
        panel(g, W / 2, "p99 latency (us)", series, FanInBenchmark.Point::p99us);
        g.dispose();
        javax.imageio.ImageIO.write(img, "png", png.toFile());
    }

    private static void panel(Graphics2D g, int x0, String title, Map<String, List<FanInBenchmark.Point>> series,
            ToDoubleFunction<FanInBenchmark.Point> value) {
        int left = x0 + 70;
        int right = x0 + W / 2 - 20;
        int top = 40;
        int bottom = H - 140;
        double minY = Double.MAX_VALUE;
        double maxY = 0;
        int maxX = 1;
        for (List<FanInBenchmark.Point> s : series.values()) {
            for (FanInBenchmark.Point p : s) {
                minY = Math.min(minY, value.applyAsDouble(p));
                maxY = Math.max(maxY, value.applyAsDouble(p));
                maxX = Math.max(maxX, p.contexts());
            }
        }
        double ly0 = Math.floor(Math.log10(Math.max(minY, 1e-3)));
        double ly1 = Math.ceil(Math.log10(Math.max(maxY, 1e-3)));
        if (ly1 <= ly0) {
            ly1 = ly0 + 1;
        }
        double lx1 = Math.log(maxX) / Math.log(2);
        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.drawString(title, left, 25);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        g.drawRect(left, top, right - left, bottom - top);
        for (double d = ly0; d <= ly1; d++) {
            int y = (int) (bottom - (d - ly0) / (ly1 - ly0) * (bottom - top));
            g.setColor(Color.LIGHT_GRAY);
            g.drawLine(left, y, right, y);
            g.setColor(Color.BLACK);
            g.drawString(String.format(Locale.ROOT, "%.0f", Math.pow(10, d)), x0 + 5, y + 4);
        }
        for (int c = 1; c <= maxX; c *= 2) {
            int x = (int) (left + (lx1 == 0 ? 0 : Math.log(c) / Math.log(2) / lx1) * (right - left));
            g.drawString(Integer.toString(c), x - 4, bottom + 15);
        }
        g.drawString("concurrent contexts / client threads", (left + right) / 2 - 90, bottom + 30);
        int i = 0;
        for (Map.Entry<String, List<FanInBenchmark.Point>> e : series.entrySet()) {
            g.setColor(COLORS[i % COLORS.length]);
            g.setStroke(new BasicStroke(2f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND, 1f,
                e.getKey().startsWith("raw") ? new float[] {6f, 4f} : null, 0f));
            int px = -1;
            int py = -1;
            for (FanInBenchmark.Point p : e.getValue()) {
                int x = (int) (left + (lx1 == 0 ? 0 : Math.log(p.contexts()) / Math.log(2) / lx1) * (right - left));
                double v = Math.log10(Math.max(value.applyAsDouble(p), 1e-3));
                int y = (int) (bottom - (v - ly0) / (ly1 - ly0) * (bottom - top));
                g.fillOval(x - 3, y - 3, 6, 6);
                if (px >= 0) {
                    g.drawLine(px, py, x, y);
                }
                px = x;
                py = y;
            }
            g.setStroke(new BasicStroke(1f));
            g.drawString(e.getKey(), left + 10, bottom + 50 + 16 * i);
            i++;
        }
    }
}
