package io.harbinger.spring;

import io.harbinger.spring.HarbingerProperties.Mode;
import io.harbinger.spring.HarbingerProperties.RouterKind;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.core.convert.TypeDescriptor;
import org.springframework.core.convert.converter.GenericConverter;

/**
 * Binds {@code harbinger.mode} and {@code harbinger.router.kind}, naming the allowed values when a
 * value is none of them. Spring Boot's own enum binding says only "No enum constant ...Mode.fast";
 * with this converter the binding report reads "must be one of off, shadow, predictive: fast".
 * Values match as Spring Boot matches them: ignoring case, with {@code -} for {@code _}.
 */
final class AllowedValues implements GenericConverter {

  private static final Set<Class<? extends Enum<?>>> TYPES = Set.of(Mode.class, RouterKind.class);

  @Override
  public Set<ConvertiblePair> getConvertibleTypes() {
    return TYPES.stream()
        .map(type -> new ConvertiblePair(String.class, type))
        .collect(Collectors.toUnmodifiableSet());
  }

  @Override
  public Object convert(Object source, TypeDescriptor sourceType, TypeDescriptor targetType) {
    if (source == null) {
      return null;
    }
    String text = ((String) source).trim();
    Enum<?>[] constants = (Enum<?>[]) targetType.getType().getEnumConstants();
    String wanted = text.replace('-', '_').toUpperCase(Locale.ROOT);
    for (Enum<?> constant : constants) {
      if (constant.name().equals(wanted)) {
        return constant;
      }
    }
    throw new IllegalArgumentException(
        "must be one of "
            + Arrays.stream(constants)
                .map(c -> c.name().toLowerCase(Locale.ROOT))
                .collect(Collectors.joining(", "))
            + ": "
            + text);
  }
}
