package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The public API shows no implementation type and cannot be extended by accident. */
class PublicApiTest {

  private static final String PACKAGE = "io.harbinger.rabbit.";

  private static List<Class<?>> publicTypes() throws Exception {
    Path dir =
        Path.of(AdapterStats.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .resolve("io/harbinger/rabbit");
    List<Class<?>> types = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
        String binary = "io.harbinger.rabbit." + f.getFileName().toString().replace(".class", "");
        if (binary.endsWith("package-info")) {
          continue;
        }
        Class<?> c = Class.forName(binary, false, PublicApiTest.class.getClassLoader());
        if (isPublicMember(c)) {
          types.add(c);
        }
      }
    }
    return types;
  }

  /** Whether a class, and every class around it, is public (so visible outside the package). */
  private static boolean isPublicMember(Class<?> c) {
    for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
      if (!Modifier.isPublic(k.getModifiers()) || k.isAnonymousClass() || k.isSynthetic()) {
        return false;
      }
    }
    return true;
  }

  @Test
  void publicTypes_areFound() throws Exception {
    assertThat(publicTypes())
        .contains(
            MessageStamper.class,
            MessageStamper.Applier.class,
            DeliveryTimer.TimedDelivery.class,
            AdapterStats.class,
            IngestStats.class);
  }

  @Test
  void publicSignatures_nameNoImplementationType() throws Exception {
    List<String> leaks = new ArrayList<>();
    for (Class<?> c : publicTypes()) {
      for (Method m : c.getDeclaredMethods()) {
        if (Modifier.isPublic(m.getModifiers()) || Modifier.isProtected(m.getModifiers())) {
          check(leaks, m, m.getGenericReturnType());
        }
      }
      for (Constructor<?> k : c.getDeclaredConstructors()) {
        if (Modifier.isPublic(k.getModifiers()) || Modifier.isProtected(k.getModifiers())) {
          check(leaks, k, null);
        }
      }
      for (Field f : c.getDeclaredFields()) {
        if (Modifier.isPublic(f.getModifiers()) && isImplementation(f.getType().getName())) {
          leaks.add(c.getSimpleName() + "." + f.getName());
        }
      }
    }
    assertThat(leaks).isEmpty();
  }

  private static void check(List<String> leaks, Executable e, Type returned) {
    List<Type> types = new ArrayList<>(List.of(e.getGenericParameterTypes()));
    if (returned != null) {
      types.add(returned);
    }
    for (Type t : types) {
      for (String name : t.getTypeName().split("[<>,\\[\\] ?]+")) {
        if (isImplementation(name)) {
          leaks.add(e.getDeclaringClass().getSimpleName() + "." + e.getName() + ": " + t);
        }
      }
    }
  }

  /** Whether a type name names a type of this package that is not public: an implementation. */
  private static boolean isImplementation(String typeName) {
    if (!typeName.startsWith(PACKAGE)) {
      return false;
    }
    try {
      return !isPublicMember(Class.forName(typeName, false, PublicApiTest.class.getClassLoader()));
    } catch (ClassNotFoundException e) {
      // A nested type written with dots: io.harbinger.rabbit.Outer.Inner.
      int dot = typeName.lastIndexOf('.');
      return isImplementation(typeName.substring(0, dot) + "$" + typeName.substring(dot + 1));
    }
  }

  @Test
  void publicClasses_areFinalOrClosed() throws Exception {
    List<String> open = new ArrayList<>();
    for (Class<?> c : publicTypes()) {
      boolean closed =
          c.isInterface()
              || c.isEnum()
              || c.isRecord()
              || c.isSealed()
              || Modifier.isFinal(c.getModifiers());
      if (!closed) {
        open.add(c.getName());
      }
    }
    assertThat(open).isEmpty();
  }

  @Test
  void adapterStats_offersReadsOnly() {
    assertThat(AdapterStats.class.getMethods())
        .filteredOn(m -> m.getDeclaringClass() == AdapterStats.class)
        .allSatisfy(m -> assertThat(m.getParameterCount()).as(m.getName()).isZero());
  }
}
