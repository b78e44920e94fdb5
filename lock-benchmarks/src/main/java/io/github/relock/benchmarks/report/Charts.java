package io.github.relock.benchmarks.report;

import java.awt.Color;
import java.awt.Font;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import javax.imageio.ImageIO;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.CategorySeries.CategorySeriesRenderStyle;
import org.knowm.xchart.style.Styler.LegendLayout;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.knowm.xchart.style.theme.XChartTheme;

/**
 * The report's figures as PNG charts beside the Markdown file: ops/s per workload and library as grouped
 * bars, and the W3 wait in {@code lock()} per library as a percentile curve on a log axis. Drawn from the
 * same {@link Result}s as the tables; nothing is measured here.
 */
public final class Charts {

    static {
        // first of all statics: the theme below loads AWT, which reads this once; CI has no display
        System.setProperty("java.awt.headless", "true");
    }

    /** The contended workload whose wait distribution is drawn. */
    public static final String LATENCY_WORKLOAD = "W3";

    private static final int WIDTH = 1000;
    private static final int HEIGHT = 560;
    private static final Color[] PALETTE = new XChartTheme().getSeriesColors();

    private Charts() {
    }

    /**
     * Bar chart data: one group per workload, one bar per library, both in the order they ran.
     *
     * @param workloads  group labels, e.g. {@code W3, 4x4 threads}
     * @param byLibrary  median ops/s per group for each library; null where it did not run or completed nothing
     */
    public record Bars(List<String> workloads, Map<String, List<Double>> byLibrary) {
    }

    /**
     * Percentile curves of one workload.
     *
     * @param workload     workload id
     * @param threads      its thread layout, e.g. {@code 4x4}
     * @param labels       {@code p50} ... {@code max}
     * @param millisByLibrary latency in milliseconds at each label, for each library that completed operations
     */
    public record Curves(String workload, String threads, List<String> labels, Map<String, List<Double>> millisByLibrary) {
    }

    /**
     * Writes the charts of this report beside {@code markdown}: {@code NAME-ops.png} and, if the report has
     * W3 rows, {@code NAME-w3-wait.png}, where NAME is the Markdown file's name without {@code .md}.
     *
     * @return the files written
     * @throws IOException if a file cannot be written; the message names it
     */
    public static List<Path> write(Report report, Path markdown) throws IOException {
        Path dir = markdown.toAbsolutePath().getParent();
        String name = markdown.getFileName().toString().replaceFirst("\\.md$", "");
        List<Path> written = new ArrayList<>();
        Bars bars = bars(report.results());
        if (!bars.workloads().isEmpty()) {
            written.add(save(barChart(bars), dir.resolve(name + "-ops.png")));
        }
        Optional<Curves> curves = curves(report.results(), LATENCY_WORKLOAD);
        if (curves.isPresent()) {
            List<String> order = List.copyOf(bars.byLibrary().keySet());
            written.add(save(curveChart(curves.get(), order), dir.resolve(name + "-w3-wait.png")));
        }
        return written;
    }

    /** Groups the results by workload; a library missing from a workload gets null there. */
    public static Bars bars(List<Result> results) {
        Map<String, String> labels = new LinkedHashMap<>();
        List<String> libraries = new ArrayList<>();
        for (Result r : results) {
            labels.merge(r.workload(), groupLabel(r), (old, now) -> old.endsWith("-") ? now : old);
            if (!libraries.contains(r.library())) {
                libraries.add(r.library());
            }
        }
        Map<String, List<Double>> byLibrary = new LinkedHashMap<>();
        for (String library : libraries) {
            List<Double> values = new ArrayList<>();
            for (String workload : labels.keySet()) {
                values.add(results.stream().filter(r -> r.library().equals(library) && r.workload().equals(workload))
                        .map(Result::opsPerSecond).filter(v -> !v.isNaN() && v > 0).findFirst().orElse(null));
            }
            byLibrary.put(library, values);
        }
        return new Bars(List.copyOf(labels.values()), byLibrary);
    }

    /** The percentile curves of every library that completed operations in {@code workload}; empty if none did. */
    public static Optional<Curves> curves(List<Result> results, String workload) {
        List<String> labels = LatencyCurve.PERCENTILES.stream().map(LatencyCurve::label).toList();
        Map<String, List<Double>> byLibrary = new LinkedHashMap<>();
        String threads = "-";
        for (Result r : results) {
            if (!r.workload().equals(workload) || r.latencyCurve().points().isEmpty()) {
                continue;
            }
            threads = r.threads();
            byLibrary.put(r.library(), r.latencyCurve().points().stream().map(p -> p.micros() / 1000.0).toList());
        }
        return byLibrary.isEmpty() ? Optional.empty() : Optional.of(new Curves(workload, threads, labels, byLibrary));
    }

    static CategoryChart barChart(Bars bars) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
                .title("Throughput by workload and library (median run)")
                .xAxisTitle("workload and threads").yAxisTitle("operations per second (ops/s)").build();
        style(chart);
        chart.getStyler().setYAxisDecimalPattern("#,##0");
        chart.getStyler().setYAxisMin(0.0);
        List<String> order = List.copyOf(bars.byLibrary().keySet());
        bars.byLibrary().forEach((library, values) ->
                chart.addSeries(library, bars.workloads(), values).setFillColor(colour(order, library)));
        return chart;
    }

    /** {@code order}: every library of the run, so that each keeps the colour it has in the bar chart. */
    static CategoryChart curveChart(Curves curves, List<String> order) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
                .title(curves.workload() + " contended (" + curves.threads() + " threads on one key): wait in lock() by percentile")
                .xAxisTitle("percentile of acquisitions, all runs (one more nine per step after p90)")
                .yAxisTitle("wait in lock(), ms (log scale)").build();
        style(chart);
        chart.getStyler().setDefaultSeriesRenderStyle(CategorySeriesRenderStyle.Line);
        // every library's point on its percentile, not shifted sideways as grouped bars would be
        chart.getStyler().setOverlapped(true);
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setYAxisDecimalPattern("#,##0.###");
        chart.getStyler().setMarkerSize(8);
        curves.millisByLibrary().forEach((library, millis) -> {
            Color colour = colour(order, library);
            CategorySeries series = chart.addSeries(library, curves.labels(), millis);
            series.setMarker(SeriesMarkers.CIRCLE);
            series.setLineColor(colour);
            series.setMarkerColor(colour);
        });
        return chart;
    }

    private static void style(CategoryChart chart) {
        chart.getStyler().setLegendPosition(LegendPosition.OutsideS);
        chart.getStyler().setLegendLayout(LegendLayout.Horizontal);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        chart.getStyler().setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        chart.getStyler().setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        chart.getStyler().setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
    }

    private static Color colour(List<String> order, String library) {
        int index = Math.max(0, order.indexOf(library));
        return PALETTE[index % PALETTE.length];
    }

    /** "W3, 4x4 threads"; a row that never started has "-" threads, which a later row replaces. */
    private static String groupLabel(Result r) {
        if (r.threads().equals("-")) {
            return r.workload() + ", -";
        }
        return r.workload() + ", " + r.threads() + (r.threads().equals("1") ? " thread" : " threads");
    }

    private static Path save(CategoryChart chart, Path file) throws IOException {
        BufferedImage image = BitmapEncoder.getBufferedImage(chart);
        Files.createDirectories(file.getParent());
        if (!ImageIO.write(image, "png", file.toFile())) {
            throw new IOException("no PNG writer in this JVM; cannot write chart " + file);
        }
        return file;
    }
}
