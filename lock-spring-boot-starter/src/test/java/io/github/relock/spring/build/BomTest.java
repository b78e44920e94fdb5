package io.github.relock.spring.build;

import static org.assertj.core.api.Assertions.assertThat;

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
        assertThat(text(bom.getDocumentElement(), "version"))
                .as("relock-bom/pom.xml <version> must equal relock-parent's")
                .isEqualTo(text(parent.getDocumentElement(), "version"));

        List<String> published = new ArrayList<>();
        NodeList modules = parent.getElementsByTagName("module");
        for (int i = 0; i < modules.getLength(); i++) {
            String module = modules.item(i).getTextContent().strip();
            Element project = read(ROOT.resolve(module).resolve("pom.xml")).getDocumentElement();
            if (!module.equals("relock-bom") && !"true".equals(property(project, "maven.deploy.skip"))) {
                published.add(text(project, "artifactId"));
            }
        }
        List<String> managed = new ArrayList<>();
        for (Element dependency : children(child(child(bom.getDocumentElement(), "dependencyManagement"), "dependencies"),
                "dependency")) {
            String artifactId = text(dependency, "artifactId");
            assertThat(text(dependency, "groupId")).as("groupId of %s", artifactId).isEqualTo("io.github.relock");
            assertThat(text(dependency, "version")).as("version of %s", artifactId).isEqualTo("${project.version}");
            managed.add(artifactId);
        }
        assertThat(published).as("published modules (no maven.deploy.skip property)").contains("lock-core",
                "lock-spring-boot-starter");
        assertThat(managed).as("relock-bom's dependencyManagement must manage every published module")
                .containsExactlyInAnyOrderElementsOf(published);
    }

    private static String property(Element project, String name) {
        List<Element> properties = children(project, "properties");
        return properties.isEmpty() || children(properties.get(0), name).isEmpty() ? null
                : children(properties.get(0), name).get(0).getTextContent().strip();
    }

    private static Document read(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    /** The text of an element's direct child, so a parent's or plugin's version is not mistaken for it. */
    private static String text(Element element, String name) {
        return child(element, name).getTextContent().strip();
    }

    private static Element child(Element element, String name) {
        List<Element> found = children(element, name);
        if (found.isEmpty()) {
            throw new AssertionError("no <" + name + "> in <" + element.getTagName() + ">");
        }
        return found.get(0);
    }

    private static List<Element> children(Element element, String name) {
        List<Element> found = new ArrayList<>();
        NodeList children = element.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i) instanceof Element e && e.getTagName().equals(name)) {
                found.add(e);
            }
        }
        return found;
    }
}
