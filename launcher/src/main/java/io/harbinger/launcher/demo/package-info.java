/** {@code harbinger demo}: a short, self-contained demonstration on the local RabbitMQ. */
package io.harbinger.launcher.demo;
