/**
 * Harbinger for Spring AMQP and Spring Boot.
 *
 * <p>{@link io.harbinger.spring.HarbingerAutoConfiguration} installs, under {@link
 * io.harbinger.spring.HarbingerProperties} ({@code harbinger.*}): {@link
 * io.harbinger.spring.HarbingerStamping}, the {@code RabbitTemplate} post-processor that stamps
 * every publish; {@link io.harbinger.spring.HarbingerListenerAdvice}, the listener-container advice
 * that reports every listener's duration; and {@link io.harbinger.spring.HarbingerQueues}, which
 * makes the {@code Queue} beans of priority queues and lanes. For lanes, {@link
 * io.harbinger.spring.HarbingerTemplateAutoConfiguration} makes the application's template a {@link
 * io.harbinger.spring.HarbingerRabbitTemplate}, which publishes into the lane of each message's
 * level, and the simple listener containers of lanes queues consume every lane. Both sides run the
 * rabbit-adapter's own code ({@code MessageStamper}, {@code DeliveryTimer}), so a Spring
 * application and one with wrapped channels put the same messages on the wire and send the same
 * reports.
 */
package io.harbinger.spring;
