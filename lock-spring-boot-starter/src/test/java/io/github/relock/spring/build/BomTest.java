package io.github.relock.spring.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * relock-bom has no parent (importing it must not import relock-parent's management), so nothing in Maven keeps
 * it in step: this checks that it has the reactor's version and manages every published module.
 */
class BomTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void theBomHasTheReactorsVersionAndEveryPublishedModule() throws Exception {
        Document parent = read(ROOT.resolve("pom.xml"));
        Document bom = read(ROOT.resolve("relock-bom/pom.xml"));
        assertThat(child(bom.getDocumentElement(), "version"))
                .as("relock-bom/pom.xml <version> must equal relock-parent's")
                .isEqualTo(child(parent.getDocumentElement(), "version"));

        List<String> published = new ArrayList<>();
        NodeList modules = parent.getElementsByTagName("module");
        for (int i = 0; i < modules.getLength(); i++) {
            String module = modules.item(i).getTextContent().strip();
            Path pom = ROOT.resolve(module).resolve("pom.xml");
            if (!module.equals("relock-bom") && !Files.readString(pom).contains("<maven.deploy.skip>true<")) {
                published.add(child(read(pom).getDocumentElement(), "artifactId"));
            }
        }
        List<String> managed = new ArrayList<>();
        NodeList artifactIds = bom.getElementsByTagName("dependency");
        for (int i = 0; i < artifactIds.getLength(); i++) {
            managed.add(child((Element) artifactIds.item(i), "artifactId"));
        }
        assertThat(published).as("published modules (no maven.deploy.skip)").contains("lock-core",
                "lock-spring-boot-starter");
        assertThat(managed).as("relock-bom must manage every published module").containsExactlyInAnyOrderElementsOf(
                published);
    }

    private static Document read(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    /** The text of an element's direct child, so a parent's or plugin's version is not mistaken for it. */
    private static String child(Element element, String name) {
        NodeList children = element.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i) instanceof Element e && e.getTagName().equals(name)) {
                return e.getTextContent().strip();
            }
        }
        throw new AssertionError("no <" + name + "> in <" + element.getTagName() + ">");
    }
}
