"""Java and Kotlin builds: Gradle (through its wrapper when the project has one) and
Maven (likewise), with Spotless and Checkstyle when the build applies them."""

from __future__ import annotations

from serena_memory.agent.project_facts.files import Project

GRADLE_FILES = ("build.gradle.kts", "build.gradle", "settings.gradle.kts", "settings.gradle",
                "gradle/libs.versions.toml")  # fmt: skip


def read_gradle(project: Project) -> None:
    build = project.first("build.gradle.kts", "build.gradle")
    if build is None:
        return
    tool = "./gradlew" if project.is_file("gradlew") else "gradle"
    sheet = project.sheet
    sheet.add_default("build", f"{tool} build", build)
    sheet.add_default("test", f"{tool} test", build)
    sheet.add_default("lint", f"{tool} check", build)
    texts = " ".join(project.text(name) or "" for name in GRADLE_FILES)
    if "spotless" in texts:
        sheet.add("format", f"{tool} spotlessApply", build)
        sheet.add("lint", f"{tool} spotlessCheck", build)


def read_maven(project: Project) -> None:
    pom = project.text("pom.xml")
    if pom is None:
        return
    tool = "./mvnw" if project.is_file("mvnw") else "mvn"
    sheet = project.sheet
    sheet.add_default("build", f"{tool} package", "pom.xml")
    sheet.add_default("test", f"{tool} test", "pom.xml")
    sheet.add_default("lint", f"{tool} verify", "pom.xml")
    if "spotless" in pom:
        sheet.add("format", f"{tool} spotless:apply", "pom.xml")
        sheet.add("lint", f"{tool} spotless:check", "pom.xml")
    if "maven-checkstyle-plugin" in pom:
        sheet.add("lint", f"{tool} checkstyle:check", "pom.xml")
