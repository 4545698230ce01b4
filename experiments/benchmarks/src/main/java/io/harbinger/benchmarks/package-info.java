/**
 * JMH benchmarks and measurement mains. Build with {@code ./mvnw -q -pl benchmarks -am package
 * -DskipTests}, then run {@code java -jar experiments/benchmarks/target/benchmarks.jar NAME}.
 */
package io.harbinger.benchmarks;
