package io.github.relock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Every Java block of the guide that says where it comes from ({@code <!-- snippet: path#tag -->} right before
 * its fence) is the tagged region of that source file, whitespace aside; the guide's code-first pages have no
 * Java block that says neither that nor {@code <!-- not-compiled: why -->}.
 */
class DocsSnippetTest {

    /** The pages whose Java must be compiled code, unless a block says why not. */
    static final List<String> COMPILED_PAGES = List.of("docs/getting-started.md", "docs/annotation.md",
            "docs/core-api.md", "README.md");

    static final Pattern MARKER = Pattern.compile("<!--\\s*(snippet|not-compiled):\\s*(.*?)\\s*-->");

    static final Path ROOT = repositoryRoot();

    @Test
    void everyMarkedBlockIsItsTaggedSourceRegion() {
        List<String> differences = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            for (Block block : blocks(page)) {
                if (block.source() == null) {
                    continue;
                }
                String region = region(block.source());
                if (!normalised(region).equals(normalised(block.code()))) {
                    differences.add(ROOT.relativize(page) + ":" + block.line() + " differs from " + block.source()
                            + "\n--- in the page:\n" + block.code() + "\n--- in the source:\n" + region);
                }
                checked++;
            }
        }
        assertThat(differences).as("code blocks that no longer match their source").isEmpty();
        assertThat(checked).as("snippets checked").isGreaterThanOrEqualTo(20);
    }

    @Test
    void theCodeFirstPagesShowNoUncheckedJavaUnlessTheySayWhy() {
        List<String> unmarked = new ArrayList<>();
        for (String name : COMPILED_PAGES) {
            Path page = ROOT.resolve(name);
            assertThat(page).exists();
            for (Block block : blocks(page)) {
                if (block.language().equals("java") && block.marker() == null) {
                    unmarked.add(name + ":" + block.line());
                }
            }
        }
        assertThat(unmarked).as("Java blocks with neither <!-- snippet: ... --> nor <!-- not-compiled: ... -->")
                .isEmpty();
    }

    @Test
    void everyTaggedRegionIsShownSomewhere() throws IOException {
        Set<String> shown = new LinkedHashSet<>();
        for (Path page : pages()) {
            blocks(page).stream().filter(block -> block.source() != null).forEach(block -> shown.add(block.source()));
        }
        Path sources = ROOT.resolve("lock-sample-app/src/test/java/io/github/relock/docs");
        List<String> unshown = new ArrayList<>();
        try (Stream<Path> files = Files.list(sources)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                Matcher tag = Pattern.compile("(?m)^\\s*// tag::([\\w-]+)\\[]\\s*$").matcher(Files.readString(file));
                while (tag.find()) {
                    String source = ROOT.relativize(file).toString().replace('\\', '/') + "#" + tag.group(1);
                    if (!shown.contains(source)) {
                        unshown.add(source);
                    }
                }
            }
        }
        assertThat(unshown).as("tagged regions no page shows").isEmpty();
    }

    @Test
    void aChangedSnippetIsCaught() {
        String region = region("lock-sample-app/src/test/java/io/github/relock/docs/ShippingService.java#quick-start");
        String reindented = region.replace("\n", "\n    ").replace("  ", "\t");
        String edited = region.replace("#order.id", "#order.number");

        assertThat(normalised(reindented)).isEqualTo(normalised(region));
        assertThat(normalised(edited)).isNotEqualTo(normalised(region));
    }

    /** A fenced block of a page: where it starts, its language, its marker if any, and its text. */
    record Block(int line, String language, String marker, String code) {

        /** {@code path#tag} when the block says it is cut from a source file; else null. */
        String source() {
            return marker != null && marker.startsWith("snippet:") ? marker.substring("snippet:".length()) : null;
        }
    }

    static List<Block> blocks(Path page) {
        List<String> lines = read(page).lines().toList();
        List<Block> blocks = new ArrayList<>();
        String marker = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            Matcher found = MARKER.matcher(line);
            if (found.matches()) {
                marker = found.group(1) + ":" + found.group(2);
                continue;
            }
            if (line.startsWith("```") && line.length() > 3) {
                int start = i + 1;
                StringBuilder code = new StringBuilder();
                for (i = start; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
                    code.append(lines.get(i)).append('\n');
                }
                blocks.add(new Block(start, line.substring(3).strip(), marker, code.toString()));
                marker = null;
            }
            else if (!line.isEmpty()) {
                marker = null;    // a marker belongs to the block right after it
            }
        }
        return blocks;
    }

    /** The lines between {@code // tag::tag[]} and {@code // end::tag[]} of {@code path#tag}, other markers left out. */
    static String region(String source) {
        int hash = source.indexOf('#');
        assertThat(hash).as("snippet source " + source + " is path#tag").isPositive();
        Path file = ROOT.resolve(source.substring(0, hash));
        String tag = source.substring(hash + 1);
        assertThat(file).as(source).exists();
        List<String> lines = read(file).lines().toList();
        int start = indexOf(lines, "// tag::" + tag + "[]");
        int end = indexOf(lines, "// end::" + tag + "[]");
        assertThat(start).as("// tag::" + tag + "[] in " + file).isNotNegative();
        assertThat(end).as("// end::" + tag + "[] in " + file).isGreaterThan(start);
        StringBuilder region = new StringBuilder();
        for (String line : lines.subList(start + 1, end)) {
            if (!line.strip().startsWith("// tag::") && !line.strip().startsWith("// end::")) {
                region.append(line).append('\n');
            }
        }
        return region.toString().stripTrailing().stripIndent() + "\n";
    }

    static int indexOf(List<String> lines, String marker) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().equals(marker)) {
                return i;
            }
        }
        return -1;
    }

    /** Whitespace runs as one space, so indentation and line wrapping do not count. */
    static String normalised(String code) {
        return code.strip().replaceAll("\\s+", " ");
    }

    static List<Path> pages() {
        List<Path> pages = new ArrayList<>();
        pages.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return pages;
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !(Files.isDirectory(dir.resolve("docs")) && Files.exists(dir.resolve("mvnw")))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("No repository root (docs/ and mvnw) above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }
}
