package io.harbinger.spring.sample;

import java.util.Map;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The producer: {@code POST /jobs?type=export&count=10} publishes jobs of a type; {@code GET /jobs}
 * shows how many of each type the listener finished.
 *
 * <p>The only Harbinger-specific line is the job-type header: the auto-configured {@code
 * RabbitTemplate} stamps the priority, the {@code user-id} and Harbinger's headers itself.
 */
@RestController
class JobsController {

  private final RabbitTemplate template;
  private final JobsListener listener;
  private final String queue;

  JobsController(
      RabbitTemplate template, JobsListener listener, @Value("${sample.queue}") String queue) {
    this.template = template;
    this.listener = listener;
    this.queue = queue;
  }

  @PostMapping("/jobs")
  ResponseEntity<String> publish(
      @RequestParam String type, @RequestParam(defaultValue = "1") int count) {
    if (count < 1 || count > 10_000) {
      return ResponseEntity.badRequest().body("count must be in [1, 10000]: " + count + "\n");
    }
    for (int i = 0; i < count; i++) {
      template.convertAndSend(
          "",
          queue,
          "job of type " + type,
          message -> {
            message.getMessageProperties().setHeader("x-job-type", type);
            return message;
          });
    }
    return ResponseEntity.accepted().body(count + " " + type + " job(s) published\n");
  }

  @GetMapping("/jobs")
  Map<String, Long> done() {
    return listener.done();
  }
}
