/* SPDX-License-Identifier: MIT */
/*
 * net_features.h - the virtio-net feature bits by name (net_features.c):
 * what --features accepts and what status prints
 */
#ifndef VNET_NET_FEATURES_H
#define VNET_NET_FEATURES_H

const char *net_feature_name(unsigned int bit);
int net_feature_bit(const char *name);

#endif /* VNET_NET_FEATURES_H */
