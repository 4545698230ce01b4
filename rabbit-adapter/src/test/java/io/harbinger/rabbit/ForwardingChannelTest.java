package io.harbinger.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.mockingDetails;
import static org.mockito.Mockito.withSettings;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.mockito.invocation.Invocation;

class ForwardingChannelTest {

  /** The methods PredictiveChannel changes; every overload of these must be its own. */
  private static final Set<String> INTERCEPTED =
      Set.of(
          "basicPublish",
          "basicConsume",
          "basicAck",
          "basicNack",
          "basicReject",
          "basicRecover",
          "basicGet",
          "basicQos",
          "close",
          "abort");

  /**
   * The Channel methods the wrappers declare: all but the static ones and newer clients' {@code
   * ByteBuffer} publish, whose default method copies the body and calls the {@code byte[]}
   * overload, so that the adapter compiles against clients without it (PublishTest checks that such
   * a publish is stamped).
   */
  private static List<Method> channelMethods() {
    return Arrays.stream(Channel.class.getMethods())
        .filter(m -> !Modifier.isStatic(m.getModifiers()))
        .filter(m -> !(m.isDefault() && m.getName().equals("basicPublish")))
        .toList();
  }

  /** ForwardingChannel's delegation is split in two files, by AMQP class. */
  private static final List<Class<?>> FORWARDING =
      List.of(ForwardingChannel.class, TopologyForwardingChannel.class);

  @Test
  void forwardingChannel_everyChannelMethod_isDeclaredNotInherited() {
    List<String> missing = new ArrayList<>();
    List<String> twice = new ArrayList<>();
    for (Method m : channelMethods()) {
      List<Method> own = new ArrayList<>();
      for (Class<?> half : FORWARDING) {
        try {
          own.add(half.getDeclaredMethod(m.getName(), m.getParameterTypes()));
        } catch (NoSuchMethodException e) {
          // Declared by the other half, or missing.
        }
      }
      if (own.isEmpty() || Modifier.isAbstract(own.get(0).getModifiers())) {
        missing.add(m.toGenericString());
      } else if (own.size() > 1) {
        twice.add(m.toGenericString());
      }
    }
    assertThat(channelMethods()).hasSizeGreaterThanOrEqualTo(100);
    assertThat(missing).as("Channel methods ForwardingChannel does not declare").isEmpty();
    assertThat(twice).as("Channel methods both halves declare").isEmpty();
  }

  @Test
  void predictiveChannel_everyOverloadOfInterceptedMethods_isOverridden() {
    List<String> missing = new ArrayList<>();
    for (Method m : channelMethods()) {
      if (!INTERCEPTED.contains(m.getName())) {
        continue;
      }
      try {
        PredictiveChannel.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
      } catch (NoSuchMethodException e) {
        missing.add(m.toGenericString());
      }
    }
    assertThat(missing).as("overloads PredictiveChannel does not intercept").isEmpty();
    long publishes =
        Stream.of(PredictiveChannel.class.getDeclaredMethods())
            .filter(m -> m.getName().equals("basicPublish"))
            .count();
    long consumes =
        Stream.of(PredictiveChannel.class.getDeclaredMethods())
            .filter(m -> m.getName().equals("basicConsume"))
            .count();
    assertThat(publishes).isEqualTo(3);
    assertThat(consumes).isEqualTo(20);
  }

  @Test
  void recoverableChannel_everyRecoverableMethod_isDeclared() throws Exception {
    for (Method m : Recoverable.class.getMethods()) {
      Method own =
          RecoverablePredictiveChannel.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
      assertThat(Modifier.isAbstract(own.getModifiers())).isFalse();
    }
    Channel delegate = mock(Channel.class, withSettings().extraInterfaces(Recoverable.class));
    RecoverablePredictiveChannel wrapped =
        new RecoverablePredictiveChannel(
            delegate, ChannelOptions.builder("guest").build(), new PrefetchGuard());
    RecoveryListener listener = mock(RecoveryListener.class);
    wrapped.addRecoveryListener(listener);
    wrapped.removeRecoveryListener(listener);
    assertThat(mockingDetails(delegate).getInvocations())
        .extracting(i -> i.getMethod().getName())
        .contains("addRecoveryListener", "removeRecoveryListener");
  }

  @Test
  void forwardingChannel_everyMethod_reachesDelegateWithSameArguments() throws Exception {
    Channel delegate = mock(Channel.class);
    ForwardingChannel forwarding = new ForwardingChannel(delegate) {};
    assertForwardsEverything(forwarding, delegate, null);
  }

  @Test
  void predictiveChannel_everyMethodNotIntercepted_reachesDelegateWithSameArguments()
      throws Exception {
    Channel delegate = mock(Channel.class);
    PredictiveChannel wrapped =
        new PredictiveChannel(
            delegate, ChannelOptions.builder("guest").build(), new PrefetchGuard());
    assertForwardsEverything(wrapped, delegate, PredictiveChannel.class);
  }

  private static void assertForwardsEverything(
      Channel wrapper, Channel delegate, Class<?> skipOverridesOf) throws Exception {
    int checked = 0;
    for (Method m : channelMethods()) {
      if (skipOverridesOf != null && declares(skipOverridesOf, m)) {
        continue;
      }
      Object[] args = argumentsFor(m);
      int before = mockingDetails(delegate).getInvocations().size();
      try {
        m.invoke(wrapper, args);
      } catch (InvocationTargetException e) {
        throw new AssertionError(m + " threw", e.getCause());
      }
      List<Invocation> calls = new ArrayList<>(mockingDetails(delegate).getInvocations());
      assertThat(calls).as(m.toGenericString()).hasSize(before + 1);
      Invocation last = calls.get(calls.size() - 1);
      assertThat(last.getMethod()).as(m.toGenericString()).isEqualTo(m);
      assertThat(last.getArguments()).as(m.toGenericString()).containsExactly(args);
      checked++;
    }
    assertThat(checked).isGreaterThan(50);
  }

  private static boolean declares(Class<?> type, Method m) {
    try {
      type.getDeclaredMethod(m.getName(), m.getParameterTypes());
      return true;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  private static Object[] argumentsFor(Method m) {
    Class<?>[] types = m.getParameterTypes();
    Object[] args = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      Class<?> t = types[i];
      if (t == boolean.class) {
        args[i] = i % 2 == 0;
      } else if (t == int.class) {
        args[i] = 7 + i;
      } else if (t == long.class) {
        args[i] = 11L + i;
      } else if (t == String.class) {
        args[i] = "arg" + i;
      } else if (t == Map.class) {
        args[i] = Map.of("k", i);
      } else if (t == byte[].class) {
        args[i] = new byte[] {(byte) i};
      } else if (t == ByteBuffer.class) {
        args[i] = ByteBuffer.wrap(new byte[] {(byte) i});
      } else if (t == AMQP.BasicProperties.class) {
        args[i] = new AMQP.BasicProperties.Builder().contentType("c" + i).build();
      } else if (t.isInterface()) {
        args[i] = mock(t);
      } else if (t.isEnum()) {
        args[i] = t.getEnumConstants()[0];
      } else {
        args[i] = null;
      }
    }
    return args;
  }
}
