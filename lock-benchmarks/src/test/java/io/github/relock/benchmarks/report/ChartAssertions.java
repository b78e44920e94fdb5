package io.github.relock.benchmarks.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import javax.imageio.ImageIO;

/** Checks on a chart file, shared by the chart unit test and the smoke test. */
public final class ChartAssertions {

    private ChartAssertions() {
    }

    /** A PNG that ImageIO reads back, of the charts' size, with more than a blank background on it. */
    public static void assertChart(Path file) {
        BufferedImage image;
        try {
            image = ImageIO.read(file.toFile());
        }
        catch (IOException ex) {
            throw new AssertionError(file + " is not a readable image", ex);
        }
        assertNotNull(image, file + " is not an image ImageIO can read");
        assertEquals(1000, image.getWidth(), file.toString());
        assertEquals(560, image.getHeight(), file.toString());
        Set<Integer> colours = new HashSet<>();
        for (int x = 0; x < image.getWidth(); x += 3) {
            for (int y = 0; y < image.getHeight(); y += 3) {
                colours.add(image.getRGB(x, y));
            }
        }
        // a title, axes, a legend and one series already bring dozens of anti-aliased shades
        assertTrue(colours.size() >= 8, file + " is nearly blank: " + colours.size() + " colours");
    }
}
