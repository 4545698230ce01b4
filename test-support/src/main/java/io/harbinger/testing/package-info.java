/**
 * The brokers of Harbinger's integration tests.
 *
 * <p>Annotate a test method with {@link io.harbinger.testing.EachBroker} to run it once on RabbitMQ
 * 3.x and once on 4.x, or a class with {@link io.harbinger.testing.WithBroker} to give it one
 * broker; take a {@link io.harbinger.testing.TestBroker} parameter to connect. Brokers come from
 * {@code RABBITMQ_URI} and {@code RABBITMQ4_URI} (loopback by default); under {@code CI=true} a
 * missing broker fails the run, elsewhere its tests are skipped and the JVM prints one line per
 * missing broker naming the variable to set. Anything else a test needs (a cluster, Docker, a
 * folder of traces) is a {@link io.harbinger.testing.Prerequisite}, skipped and failed the same
 * way. Further ways to obtain a broker plug in as {@link io.harbinger.testing.BrokerLocator}s:
 * {@link io.harbinger.testing.TestcontainersBrokerLocator} starts RabbitMQ in a container where
 * Docker runs and nothing answers at the URI, and {@link io.harbinger.testing.ContainerBroker} does
 * the same for {@code ./harbinger demo}.
 *
 * <p>Faults that would disturb the shared brokers (resource alarms, a stopped broker) run on a
 * {@link io.harbinger.testing.PrivateNode}, a throwaway node one test class starts and stops; a
 * test that needs a RabbitMQ user other than guest creates one with {@link
 * io.harbinger.testing.TestBroker#addUser}, deleted when the {@link
 * io.harbinger.testing.TemporaryUser} is closed.
 *
 * <p>A test that waits for a process (reports learned, messages delivered) waits with a {@link
 * io.harbinger.testing.ProgressWait}, bounded by the process's progress rather than by a fixed time
 * that a loaded machine misses.
 */
package io.harbinger.testing;
