package io.softcmi.vmmc.samples;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;

/** Draws a bandwidth curve (message size on a log2 axis, MB/s on a linear one) as a PNG, headless. */
final class CurvePng {
    private static final int W = 800;
    private static final int H = 500;
    private static final int M = 70;

    private CurvePng() {
    }

    /** A point: message bytes and MB/s. @param bytes size @param mbps bandwidth */
    record Point(long bytes, double mbps) {
    }

    static void write(Path file, String title, List<Point> points) throws IOException {
        System.setProperty("java.awt.headless", "true");
        BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, W, H);
            g.setColor(Color.BLACK);
            g.drawString(title, M, M / 2);
            g.drawLine(M, H - M, W - M / 2, H - M);
            g.drawLine(M, M, M, H - M);
            double maxY = points.stream().mapToDouble(Point::mbps).max().orElse(1);
            maxY = maxY <= 0 ? 1 : maxY * 1.1;
            double minX = Math.log(points.getFirst().bytes()) / Math.log(2);
            double maxX = Math.max(minX + 1, Math.log(points.getLast().bytes()) / Math.log(2));
            for (int k = 0; k <= 5; k++) {
                int y = (int) (H - M - k * (H - 2.0 * M) / 5);
                g.drawString(String.format("%.0f", maxY * k / 5), 5, y + 4);
                g.setColor(Color.LIGHT_GRAY);
                g.drawLine(M + 1, y, W - M / 2, y);
                g.setColor(Color.BLACK);
            }
            g.drawString("MB/s", 5, M - 10);
            g.drawString("message bytes (log2)", W / 2 - 50, H - 15);
            int prevX = -1;
            int prevY = -1;
            g.setStroke(new BasicStroke(2f));
            for (Point p : points) {
                double lx = Math.log(p.bytes()) / Math.log(2);
                int x = (int) (M + (lx - minX) / (maxX - minX) * (W - 1.5 * M));
                int y = (int) (H - M - p.mbps() / maxY * (H - 2.0 * M));
                g.setColor(Color.BLUE);
                if (prevX >= 0) {
                    g.drawLine(prevX, prevY, x, y);
                }
                g.fillOval(x - 3, y - 3, 6, 6);
                g.setColor(Color.BLACK);
                g.drawString(Long.toString(p.bytes()), x - 10, H - M + 15 + (points.indexOf(p) % 2) * 12);
                prevX = x;
                prevY = y;
            }
        } finally {
            g.dispose();
        }
        ImageIO.write(img, "png", file.toFile());
    }
}
