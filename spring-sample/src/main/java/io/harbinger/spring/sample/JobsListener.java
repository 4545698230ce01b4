package io.harbinger.spring.sample;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.stereotype.Component;

/**
 * The consumer: an ordinary {@code @RabbitListener}. Harbinger's listener advice times each call
 * and reports its duration, so the router learns that {@code export} jobs take long and {@code
 * reserve} jobs do not; nothing here knows about Harbinger.
 *
 * <p>The work is simulated by sleeping: 400 ms for an {@code export}, 5 ms for anything else.
 */
@Component
class JobsListener {

  private final Map<String, LongAdder> done = new ConcurrentHashMap<>();

  @RabbitListener(queues = "${sample.queue}")
  void work(Message message) throws InterruptedException {
    Object type = message.getMessageProperties().getHeaders().get("x-job-type");
    String jobType = type == null ? "untyped" : type.toString();
    Thread.sleep(jobType.equals("export") ? 400 : 5);
    done.computeIfAbsent(jobType, t -> new LongAdder()).increment();
  }

  /** Returns the jobs finished so far, by type. */
  Map<String, Long> done() {
    Map<String, Long> snapshot = new TreeMap<>();
    done.forEach((type, n) -> snapshot.put(type, n.sum()));
    return snapshot;
  }
}
